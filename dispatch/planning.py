"""What dispatch plans by: the rides of a period of Vienna days, searched, per driver, and how their day goes:
each ride's state, the chauffeurs late to set off, the no-shows and the waiting beyond what is included
(the admin's dispatch board and its CSV export read these)."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db.models import Q, QuerySet
from django.utils import timezone

from booking.models import Booking, BookingStatus, RideState
from booking.ride import RideProgress, progress
from dispatch import waiting
from dispatch.models import RideDayPolicy

# Rides on the board: paid and waiting for a driver, confirmed, done; not the ones that will not happen.
ON_THE_BOARD = (
    BookingStatus.PENDING_PAYMENT,
    BookingStatus.PAID,
    BookingStatus.CONFIRMED,
    BookingStatus.COMPLETED,
)
SEARCHED = ("reference", "name", "email", "phone", "origin", "destination")


def midnight(day: date) -> datetime:
    """The start of a Vienna day (never inside a daylight-saving gap: the clocks change at 02:00/03:00)."""
    return datetime.combine(day, time.min, tzinfo=timezone.get_default_timezone())


def days_from_today(start: int, end: int) -> tuple[datetime, datetime]:
    """[midnight `start` days from today, midnight `end` days from today), in Vienna."""
    today = timezone.localdate()
    return midnight(today + timedelta(days=start)), midnight(today + timedelta(days=end))


def rides(begin: datetime, end: datetime, *, search: str = "") -> QuerySet[Booking]:
    """The rides picked up in [begin, end), by pickup time; `search` finds any of its words in the
    reference, the customer's name, e-mail and phone, and the addresses."""
    found = Booking.objects.filter(pickup_at__gte=begin, pickup_at__lt=end, status__in=ON_THE_BOARD)
    for word in search.split():
        found = found.filter(Q(*[Q(**{f"{field}__icontains": word}) for field in SEARCHED], _connector=Q.OR))
    # The ride steps come in one query for the whole list: each card shows its ride's state.
    return (
        found.select_related("driver", "vehicle", "flight_watch")
        .prefetch_related("ride_steps")
        .order_by("pickup_at")
    )


def undated() -> QuerySet[Booking]:
    """Paid rides that name no pickup time (the contract lets REST callers leave it out): no day's board
    shows them, so dispatch sees them apart until staff set the time with the customer."""
    paid = [BookingStatus.PAID, BookingStatus.CONFIRMED]
    return Booking.objects.filter(pickup_at=None, status__in=paid).order_by("created_at")


@dataclass(frozen=True)
class Lane:
    """One row of the board: a driver (None: rides nobody drives yet) and their rides by day."""

    driver: object
    days: list[list[Booking]]


def board(found: Iterable[Booking], days: list[date], drivers) -> list[Lane]:
    """The rides per driver and day: unassigned first, then every active driver (with or without rides)."""
    index = {day: position for position, day in enumerate(days)}
    lanes: dict[object, list[list[Booking]]] = {None: [[] for _ in days]}
    for driver in drivers:
        lanes[driver.pk] = [[] for _ in days]
    by_pk = {driver.pk: driver for driver in drivers}
    for ride in found:
        lane = lanes.setdefault(ride.driver_id, [[] for _ in days])
        by_pk.setdefault(ride.driver_id, ride.driver)
        lane[index[timezone.localtime(ride.pickup_at).date()]].append(ride)
    return [Lane(None if key is None else by_pk[key], rides_by_day) for key, rides_by_day in lanes.items()]


# Not yet on the way: a chauffeur in one of these states at the set-off time is late.
NOT_SET_OFF = (None, RideState.ACCEPTED)


@dataclass(frozen=True)
class Watch:
    """What dispatch sees of a ride's day: its progress (rides' steps prefetched), when it last moved, and
    whether its chauffeur is late to set off."""

    progress: RideProgress
    last_move: datetime | None
    late: bool


def watch(booking: Booking, policy: RideDayPolicy, now: datetime) -> Watch:
    """A confirmed ride is late to set off from `policy.set_off_minutes` before its pickup (and after it)
    while its chauffeur has not reported being on the way."""
    progressed = progress(booking)
    set_off_by = booking.pickup_at and booking.pickup_at - timedelta(minutes=policy.set_off_minutes)
    late = (
        booking.status == BookingStatus.CONFIRMED
        and set_off_by is not None
        and now >= set_off_by
        and progressed.state in NOT_SET_OFF
    )
    return Watch(progressed, progressed.at(progressed.state) if progressed.state else None, late)


@dataclass(frozen=True)
class Wait:
    """A no-show, or a passenger who kept the chauffeur waiting beyond what is included, in whole minutes
    (seconds dropped): `waited` from when waiting starts (dispatch.waiting.waiting_starts) to the
    passenger on board or the no-show."""

    booking: Booking
    no_show: bool
    waited: int
    included: int
    beyond: int


def waits(found: list[Booking], policy: RideDayPolicy) -> list[Wait]:
    """The no-shows of `found` and its rides with waiting beyond the included, by pickup time."""
    listed = []
    for booking in found:
        progressed = progress(booking)
        no_show = progressed.state == RideState.NO_SHOW
        arrived = progressed.at(RideState.ARRIVED)
        ended = progressed.at(RideState.NO_SHOW if no_show else RideState.ON_BOARD)
        if arrived is None or ended is None:
            continue
        waited = max(0, int((ended - waiting.waiting_starts(booking, arrived)).total_seconds()) // 60)
        included = int(waiting.included_waiting(booking, policy).total_seconds()) // 60
        beyond = max(0, waited - included)
        if no_show or beyond:
            listed.append(Wait(booking, no_show, waited, included, beyond))
    return listed
