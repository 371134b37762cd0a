"""Pickups that meet a flight follow it. A schedule polls each airport pickup's flight (flights/services.py)
more often as landing nears, within the day's budget; the pickup becomes the landing plus the policy's
time to get out (shorter from the Schengen area, longer with luggage). A late flight moves the pickup later;
an early one earlier, but never sooner than a chauffeur can still set off for it, nor before the time
booked. Each move is recorded, announced (booking.pickup_moved) and told to the traveller and the chauffeur
once; moves under a few minutes are none. A cancelled or diverted flight alerts staff at once; an outage
changes nothing and is shown."""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from booking import announcements, history, ride, selectors
from booking import tasks as booking_tasks
from booking.models import Booking, BookingStatus, FlightStatus, FlightWatch, RideState
from dispatch import job_links
from dispatch.models import RideDayPolicy, ride_day_policy
from flights import numbers, schengen
from flights import services as flights
from flights.providers.base import FlightDataUnavailable, Leg
from places import airports

logger = logging.getLogger(__name__)

FOLLOWED = (BookingStatus.PAID, BookingStatus.CONFIRMED)
WATCHED_FROM = timedelta(hours=30)  # before the pickup: the flight's day is known by then
WATCHED_UNTIL = timedelta(hours=3)  # after the booked pickup: long delays, late landings
REAL_CHANGE = timedelta(minutes=5)  # a move below this is none: no message for a flight's wobble
# A pickup booked longer than this after the scheduled landing does not wait for the flight (a meeting at
# the airport first): the flight is followed, the pickup stays.
TIED_TO_LANDING = timedelta(hours=3)
RETRY_AFTER_OUTAGE = timedelta(minutes=10)
# Set by the pickup time still to come: the nearer, the more often (and the dearer).
INTERVALS = (
    (timedelta(hours=1), timedelta(minutes=10)),
    (timedelta(hours=3), timedelta(minutes=20)),
    (timedelta(hours=8), timedelta(hours=1)),
)
FAR_INTERVAL = timedelta(hours=4)
FINAL = (FlightStatus.LANDED, FlightStatus.CANCELLED, FlightStatus.DIVERTED)  # nothing more to learn
AT_THE_PICKUP_OR_LATER = (RideState.ARRIVED, RideState.ON_BOARD, RideState.COMPLETED, RideState.NO_SHOW)


@dataclass(frozen=True)
class Polled:
    asked: int = 0
    moved: int = 0
    budget_spent: bool = False


def poll_due(now: datetime | None = None) -> Polled:
    """Ask about every followed flight whose time has come, until the day's budget is spent."""
    now = now or timezone.now()
    if not flights.tracking():
        return Polled()
    asked = moved = 0
    for booking in _watched(now):
        watch = _watch_of(booking)
        if watch.status in FINAL or (watch.next_check_at is not None and watch.next_check_at > now):
            continue
        number = numbers.parse(booking.flight_number)
        if number is None:  # booked before numbers were checked
            _record_answer(booking.pk, None, now)
            continue
        try:
            found = flights.legs(number, timezone.localdate(watch.booked_pickup_at))
        except FlightDataUnavailable as error:
            logger.warning("Flight %s of %s not checked: %s", number, booking.reference, error)
            _unavailable(watch, now)
            continue
        if found is None:
            return Polled(asked, moved, budget_spent=True)
        asked += 1
        moved += _record_answer(booking.pk, _leg_for(found, booking, watch), now)
    return Polled(asked, moved)


def _watched(now: datetime) -> list[Booking]:
    candidates = (
        Booking.objects.filter(
            status__in=FOLLOWED,
            pickup_at__gte=now - WATCHED_UNTIL,
            pickup_at__lte=now + WATCHED_FROM,
        )
        .exclude(flight_number="")
        .select_related("flight_watch")
        .prefetch_related("ride_steps")
    )
    return [
        booking
        for booking in candidates
        if ride.meets_a_flight(booking) and ride.progress(booking).state not in AT_THE_PICKUP_OR_LATER
    ]


def _watch_of(booking: Booking) -> FlightWatch:
    """The booking's watch; a new one when its flight number changed (staff corrected it)."""
    watch = getattr(booking, "flight_watch", None)
    if watch is not None and watch.flight_number == booking.flight_number:
        return watch
    assert booking.pickup_at is not None  # noqa: S101  (watched rides are found by their pickup)
    watch, _created = FlightWatch.objects.update_or_create(
        booking=booking,
        defaults={
            "flight_number": booking.flight_number,
            "status": FlightStatus.SCHEDULED,
            "booked_pickup_at": booking.pickup_at,
            "scheduled_landing": None,
            "estimated_landing": None,
            "actual_landing": None,
            "next_check_at": None,
            "unavailable_since": None,
            "alerted_status": "",
        },
    )
    return watch


def _leg_for(found: list[Leg], booking: Booking, watch: FlightWatch) -> Leg | None:
    """Of the flight's legs that day, the one landing at the pickup's airport nearest the booked time."""
    if not found:
        return None
    code = airports.code_of(booking.origin)
    here = [leg for leg in found if leg.arrival_airport == code] or found
    booked = watch.booked_pickup_at
    return min(here, key=lambda leg: abs((leg.scheduled_landing or booked) - booked))


def _unavailable(watch: FlightWatch, now: datetime) -> None:
    watch.unavailable_since = watch.unavailable_since or now
    watch.next_check_at = now + RETRY_AFTER_OUTAGE
    watch.save(update_fields=["unavailable_since", "next_check_at"])


def _record_answer(pk: int, leg: Leg | None, now: datetime) -> int:
    """What the flight says now, and the pickup it moves; 1 when the pickup moved."""
    with transaction.atomic():
        booking = selectors.locked_booking(pk)  # the booking first, as every change locks
        watch = FlightWatch.objects.select_for_update().get(booking=booking)
        if booking.status not in FOLLOWED or booking.pickup_at is None:
            return 0
        watch.checked_at, watch.unavailable_since = now, None
        if leg is None:
            watch.status = FlightStatus.UNKNOWN
            watch.next_check_at = now + FAR_INTERVAL
            watch.save()
            return 0
        watch.status = leg.status
        watch.origin_airport, watch.arrival_airport = leg.origin_airport, leg.arrival_airport
        watch.from_schengen = schengen.from_schengen(leg.origin_country)
        watch.scheduled_landing = leg.scheduled_landing
        watch.estimated_landing, watch.actual_landing = leg.estimated_landing, leg.actual_landing
        watch.next_check_at = _next_check(watch, booking.pickup_at, now)
        if watch.status in (FlightStatus.CANCELLED, FlightStatus.DIVERTED):
            _alert(booking, watch)
            watch.save()
            return 0
        watch.save()
        pickup = following_pickup(booking, watch, ride_day_policy(), now)
        if pickup is None or abs(pickup - booking.pickup_at) < REAL_CHANGE:
            return 0
        _move(booking, watch, pickup)
        return 1


def following_pickup(
    booking: Booking, watch: FlightWatch, policy: RideDayPolicy, now: datetime
) -> datetime | None:
    """The pickup the flight's landing asks for; None when it asks nothing (no time known, or a pickup
    booked long after the landing)."""
    landing, scheduled = watch.actual_landing or watch.estimated_landing, watch.scheduled_landing
    if landing is None or scheduled is None or watch.booked_pickup_at - scheduled > TIED_TO_LANDING:
        return None
    target = landing + time_to_get_out(booking, watch, policy)
    booked = watch.booked_pickup_at
    if landing - scheduled >= REAL_CHANGE:  # late: never before the time booked
        return max(booked, target)
    if scheduled - landing >= REAL_CHANGE:  # early: no sooner than a chauffeur can still set off
        return min(booked, max(target, now + timedelta(minutes=policy.set_off_minutes)))
    return booked  # on time (again)


def time_to_get_out(booking: Booking, watch: FlightWatch, policy: RideDayPolicy) -> timedelta:
    minutes = (
        policy.flight_buffer_schengen_minutes if watch.from_schengen else policy.flight_buffer_other_minutes
    )
    if booking.luggage:
        minutes += policy.flight_buffer_baggage_minutes
    return timedelta(minutes=minutes)


def _next_check(watch: FlightWatch, pickup: datetime, now: datetime) -> datetime | None:
    if watch.status in FINAL:
        return None
    ahead = (watch.estimated_landing or watch.scheduled_landing or pickup) - now
    interval = next((every for within, every in INTERVALS if ahead <= within), FAR_INTERVAL)
    return now + interval


def _alert(booking: Booking, watch: FlightWatch) -> None:
    """Staff hear of a cancelled or diverted flight once per status: the chauffeur may be sent for nothing."""
    if watch.alerted_status == watch.status:
        return
    watch.alerted_status = watch.status
    said = (
        history.said(
            "Flight {flight} is cancelled: the pickup stays until staff decide.", flight=watch.flight_number
        )
        if watch.status == FlightStatus.CANCELLED
        else history.said(
            "Flight {flight} is diverted to {airport}: the pickup stays until staff decide.",
            flight=watch.flight_number,
            airport=watch.arrival_airport or "?",
        )
    )
    history.record(booking, history.Kind.RIDE, said, actor="flight data")
    booking_tasks.alert_operator.enqueue(booking.pk, str(said), topic="Flight")


def _move(booking: Booking, watch: FlightWatch, pickup: datetime) -> None:
    before = booking.pickup_at
    assert before is not None  # noqa: S101  (followed rides have a pickup)
    booking.pickup_at = pickup
    booking.save(update_fields=["pickup_at", "updated_at"])
    landing = watch.actual_landing or watch.estimated_landing
    assert landing is not None  # noqa: S101  (only a known landing moves a pickup)
    history.record(
        booking,
        history.Kind.CHANGE,
        history.said(
            "Pickup moved from {before} to {after}: flight {flight} lands at {landing}.",
            before=history.moment(before),
            after=history.moment(pickup),
            flight=watch.flight_number,
            landing=history.moment(landing),
        ),
        actor="flight data",
    )
    announcements.announce(
        booking,
        "booking.pickup_moved",
        previousPickupDatetime=timezone.localtime(before).isoformat(),
        flight={
            "number": watch.flight_number,
            "status": watch.status,
            "landing": timezone.localtime(landing).isoformat(),
        },
    )
    job_links.follow_change(booking)
    booking_tasks.send_pickup_moved.enqueue(
        booking.pk,
        pickup.isoformat(),
        before.isoformat(),
        landing.isoformat(),
        watch.actual_landing is not None,
    )
