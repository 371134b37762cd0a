"""Pickups that meet a flight follow it. A schedule polls each airport pickup's flight (flights/services.py)
more often as landing nears, within the day's budget; the pickup becomes the landing plus the policy's
time to get out (shorter from the Schengen area, longer with luggage). A late flight moves the pickup later;
an early one earlier, but never sooner than a chauffeur can still set off for it. Each move is recorded,
announced (booking.pickup_moved) and told to the traveller and the chauffeur once; moves under a few
minutes are none. A cancelled or diverted flight, or a move into another ride, alerts staff at once; an
outage changes nothing and is shown."""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from apikit.errors import DomainError
from booking import announcements, history, ride, selectors, trips
from booking import tasks as booking_tasks
from booking.models import Booking, BookingStatus, FlightStatus, FlightWatch, RideState
from dispatch import job_links, reminders, windows
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
# the airport first); one booked this long before it meets another day's flight: the flight is followed,
# the pickup stays.
TIED_TO_LANDING = timedelta(hours=3)
RETRY_AFTER_OUTAGE = timedelta(minutes=10)
# A pickup staff moved this far from its flight's landing meets another flight of that number (another
# day's): the watch starts afresh.
ANOTHER_FLIGHT = timedelta(hours=12)
# Set by the pickup time still to come: the nearer, the more often (and the dearer).
INTERVALS = (
    (timedelta(hours=1), timedelta(minutes=10)),
    (timedelta(hours=3), timedelta(minutes=20)),
    (timedelta(hours=8), timedelta(hours=1)),
)
FAR_INTERVAL = timedelta(hours=4)
FINAL = (FlightStatus.LANDED, FlightStatus.CANCELLED, FlightStatus.DIVERTED)  # nothing more to learn
SETTLED = (*FINAL, FlightStatus.NOT_TRACKED)  # not asked again
# Followed until the passenger is on board: a chauffeur at arrivals early still waits for the landing,
# and the waiting counts from it.
PICKED_UP_OR_ENDED = (RideState.ON_BOARD, RideState.COMPLETED, RideState.NO_SHOW)


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
        if watch.status in SETTLED or (watch.next_check_at is not None and watch.next_check_at > now):
            continue
        number = numbers.parse(booking.flight_number)
        if number is None:  # a registration, or booked before numbers were checked: nobody follows it
            FlightWatch.objects.filter(pk=watch.pk).update(
                status=FlightStatus.NOT_TRACKED, next_check_at=None
            )
            continue
        try:
            if watch.scheduled_landing is not None:  # its day is known
                found = flights.legs(number, timezone.localdate(watch.scheduled_landing))
            else:
                found = flights.legs_around(number, watch.booked_pickup_at)
        except FlightDataUnavailable as error:
            logger.warning("Flight %s of %s not checked: %s", number, booking.reference, error)
            _unavailable(watch, booking, now)
            return Polled(asked, moved)  # the others wait for the next run rather than time out too
        if found is None:
            return Polled(asked, moved, budget_spent=True)
        asked += 1
        moved += _record_answer(booking.pk, _leg_for(found, booking, watch), now)
    return Polled(asked, moved)


def _watched(now: datetime) -> list[Booking]:
    """The airport pickups whose flight is due to be asked (or whose watch is to be made or renewed)."""
    # a watch of this flight and this pickup (one staff moved is adopted, maybe as another day's flight)
    same_flight = Q(
        flight_watch__flight_number=F("flight_number"), flight_watch__followed_pickup_at=F("pickup_at")
    )
    candidates = (
        Booking.objects.filter(
            status__in=FOLLOWED,
            pickup_at__gte=now - WATCHED_UNTIL,
            pickup_at__lte=now + WATCHED_FROM,
        )
        .exclude(flight_number="")
        .exclude(same_flight & (Q(flight_watch__status__in=SETTLED) | Q(flight_watch__next_check_at__gt=now)))
        .select_related("flight_watch")
        .prefetch_related("ride_steps")
    )
    return [
        booking
        for booking in candidates
        if ride.meets_a_flight(booking) and ride.progress(booking).state not in PICKED_UP_OR_ENDED
    ]


def _watch_of(booking: Booking) -> FlightWatch:
    """The booking's watch; a new one when its flight number changed (staff corrected it)."""
    watch = ride.watch_of(booking)
    if watch is not None:
        _adopt_changed_pickup(watch, booking)
        return watch
    assert booking.pickup_at is not None  # noqa: S101  (watched rides are found by their pickup)
    watch, _created = FlightWatch.objects.update_or_create(
        booking=booking,
        defaults={
            "flight_number": booking.flight_number,
            "status": FlightStatus.SCHEDULED,
            "booked_pickup_at": booking.pickup_at,
            "followed_pickup_at": booking.pickup_at,
            "scheduled_landing": None,
            "estimated_landing": None,
            "actual_landing": None,
            "next_check_at": None,
            "unavailable_since": None,
            "alerted_status": "",
        },
    )
    return watch


def _adopt_changed_pickup(watch: FlightWatch, booking: Booking) -> bool:
    """A pickup staff or an agent moved since the flight last did is the time booked now: the flight moves
    it from there, and never back to the old one. Moved far from the flight's landing (another day), it
    meets that day's flight: asked afresh, whatever the old one did (cancelled, landed). True then."""
    if booking.pickup_at is None or watch.followed_pickup_at == booking.pickup_at:
        return False
    watch.booked_pickup_at = watch.followed_pickup_at = booking.pickup_at
    fields = ["booked_pickup_at", "followed_pickup_at"]
    landing = watch.actual_landing or watch.estimated_landing or watch.scheduled_landing
    another_flight = landing is not None and abs(booking.pickup_at - landing) > ANOTHER_FLIGHT
    if another_flight:
        watch.status, watch.alerted_status = FlightStatus.SCHEDULED, ""
        watch.scheduled_landing = watch.estimated_landing = watch.actual_landing = None
        watch.next_check_at = watch.unavailable_since = None
        fields += [
            "status",
            "alerted_status",
            "scheduled_landing",
            "estimated_landing",
            "actual_landing",
            "next_check_at",
            "unavailable_since",
        ]
    watch.save(update_fields=fields)
    return another_flight


def _leg_for(found: list[Leg], booking: Booking, watch: FlightWatch) -> Leg | None:
    """Of the flight's legs that day, the one landing at the pickup's airport (any, when the airport has no
    known code) nearest the booked time; None when none lands there."""
    code = airports.code_of(booking.origin)
    gone_wrong = (FlightStatus.CANCELLED, FlightStatus.DIVERTED)  # it may name where it lands now
    here = [leg for leg in found if code is None or leg.arrival_airport == code or leg.status in gone_wrong]
    if not here:
        return None
    booked = watch.booked_pickup_at
    return min(here, key=lambda leg: abs((leg.scheduled_landing or booked) - booked))


def _unavailable(watch: FlightWatch, booking: Booking, now: datetime) -> None:
    """Nothing changes; asked again at its own pace, and no sooner than after a few minutes."""
    watch.unavailable_since = watch.unavailable_since or now
    assert booking.pickup_at is not None  # noqa: S101  (watched rides are found by their pickup)
    watch.next_check_at = max(_next_check(watch, booking.pickup_at, now) or now, now + RETRY_AFTER_OUTAGE)
    watch.save(update_fields=["unavailable_since", "next_check_at"])


def _record_answer(pk: int, leg: Leg | None, now: datetime) -> int:
    """What the flight says now, and the pickup it moves; 1 when the pickup moved."""
    with transaction.atomic():
        booking = selectors.locked_booking(pk)  # the booking first, as every change locks
        watch = FlightWatch.objects.select_for_update().get(booking=booking)
        if booking.status not in FOLLOWED or booking.pickup_at is None:
            return 0
        if _adopt_changed_pickup(watch, booking):  # again under the lock: a change may have come between
            return 0  # the answer is about the flight the pickup no longer meets: asked afresh next run
        watch.checked_at, watch.unavailable_since = now, None
        if leg is None:
            watch.status = FlightStatus.UNKNOWN
            watch.next_check_at = _next_check(watch, booking.pickup_at, now)
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
    current = booking.pickup_at
    if landing is None or scheduled is None or current is None:
        return None
    booked = watch.booked_pickup_at
    if abs(booked - scheduled) > TIED_TO_LANDING:  # a meeting at the airport first, or another day's flight
        return None
    target = landing + time_to_get_out(booking, watch, policy)
    if landing - scheduled >= REAL_CHANGE:  # late: never before the time booked
        return max(booked, target)
    if scheduled - landing < REAL_CHANGE:
        return booked  # on time (again)
    # early: never after the time booked, and sooner only while a chauffeur can still set off for it
    if target >= current:
        return min(booked, target)
    sooner = max(target, now + timedelta(minutes=policy.set_off_minutes))
    return sooner if sooner < current else current


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
    booking.pickup_at = watch.followed_pickup_at = pickup
    if booking.estimated_arrival is not None:  # the same ride, later or sooner
        booking.estimated_arrival += pickup - before
    booking.save(update_fields=["pickup_at", "estimated_arrival", "updated_at"])
    watch.save(update_fields=["followed_pickup_at"])
    landing = watch.actual_landing or watch.estimated_landing
    assert landing is not None  # noqa: S101  (only a known landing moves a pickup)
    entry = history.record(
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
    _alert_what_is_in_the_way(booking, pickup, before)
    reminders.carry_over(booking, before)  # the message of the move is the reminder of the new time
    booking_tasks.send_pickup_moved.enqueue(
        booking.pk,
        entry.pk,
        pickup.isoformat(),
        before.isoformat(),
        landing.isoformat(),
        watch.actual_landing is not None,
    )


def _alert_what_is_in_the_way(booking: Booking, pickup: datetime, before: datetime) -> None:
    """The flight moved the pickup into the chauffeur's or the car's next ride, or past the way back's
    pickup: the move stands (the traveller lands when they land), and staff hear of it at once, once (a
    flight slipping further tells nothing new about a ride already in the way)."""
    problems = []
    busy = _rides_in_the_way(booking, pickup) - _rides_in_the_way(booking, before)
    if busy:
        problems.append(
            history.said(
                "The moved pickup overlaps {other}: assign another chauffeur or car.",
                other=", ".join(sorted(busy)),
            )
        )
    if _in_order(booking, before) and not _in_order(booking, pickup):
        other = trips.other_leg(booking)
        problems.append(
            history.said(
                "The moved pickup no longer leaves time for the other ride of the return trip ({other}).",
                other=other.reference if other else "?",
            )
        )
    for said in problems:
        history.record(booking, history.Kind.RIDE, said, actor="flight data")
        booking_tasks.alert_operator.enqueue(booking.pk, str(said), topic="Flight")


def _rides_in_the_way(booking: Booking, pickup: datetime) -> set[str]:
    """The references of the chauffeur's and the car's other rides the booking picked up at `pickup` meets."""
    window = windows.window_at(booking, pickup)
    return {
        other.reference
        for other in (
            booking.driver and windows.clash(window, exclude=booking, driver=booking.driver),
            booking.vehicle and windows.clash(window, exclude=booking, vehicle=booking.vehicle),
        )
        if other
    }


def _in_order(booking: Booking, pickup: datetime) -> bool:
    """Whether a return trip's way back still comes after its way out arrives, the booking picked up then."""
    try:
        trips.ensure_in_order(booking, pickup)
    except DomainError:
        return False
    return True
