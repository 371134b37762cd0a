"""The ride's day as the traveller, the agent and staff read it: the state the chauffeur last moved it to
and when each state was reached (booking.models.RideStep; dispatch/ride_day.py makes the moves)."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from booking import ride_stops
from booking.models import Booking, FlightStatus, FlightWatch, RideState
from flights import services as flights
from places import airports
from pricing import services as pricing
from pricing.quote import BookingType

# The chauffeur's moves, in order; a no-show ends the ride instead of "passenger on board".
SEQUENCE = (
    RideState.ACCEPTED,
    RideState.ON_THE_WAY,
    RideState.ARRIVED,
    RideState.ON_BOARD,
    RideState.COMPLETED,
)
FINAL = (RideState.COMPLETED, RideState.NO_SHOW)


@dataclass(frozen=True)
class RideProgress:
    """`state` is None before the chauffeur accepted the job; `times` holds when each reached state was
    reached (undone moves left out)."""

    state: RideState | None
    times: dict[RideState, datetime] = field(default_factory=dict)

    def at(self, state: RideState) -> datetime | None:
        return self.times.get(state)

    @property
    def finished(self) -> bool:
        return self.state in FINAL


def progress(booking: Booking) -> RideProgress:
    """From the booking's ride steps (prefetch `ride_steps` for a list: this reads `.all()`)."""
    steps = [step for step in booking.ride_steps.all() if step.undone_at is None]
    steps.sort(key=lambda step: (step.at, step.pk))
    if not steps:
        return RideProgress(None)
    return RideProgress(RideState(steps[-1].state), {RideState(step.state): step.at for step in steps})


def next_states(current: RideState | None) -> list[RideState]:
    """The moves the chauffeur may make from `current` (the no-show's waiting rule is dispatch's)."""
    if current is None:
        return [RideState.ACCEPTED]
    if current == RideState.ARRIVED:
        return [RideState.ON_BOARD, RideState.NO_SHOW]
    if current in FINAL:
        return []
    return [SEQUENCE[SEQUENCE.index(current) + 1]]


def meets_a_flight(booking: Booking) -> bool:
    """The chauffeur meets a flight: a pickup at an airport (places/airports.py) with a flight number. Only
    then do they wait at arrivals, with the flight's longer included wait; a flight number on any other
    ride (a departure from the hotel) is the chauffeur's information and changes nothing."""
    return bool(booking.flight_number) and airports.is_airport(booking.origin)


@dataclass(frozen=True)
class FollowedFlight:
    """The flight a pickup meets as last heard (dispatch/arrivals.py follows it); times are None until
    known. `status` is `not_tracked` without a flight-data provider."""

    number: str
    status: str
    scheduled_landing: datetime | None = None
    estimated_landing: datetime | None = None
    actual_landing: datetime | None = None
    pickup_as_booked: datetime | None = None
    checked_at: datetime | None = None
    unavailable_since: datetime | None = None


def watch_of(booking: Booking) -> FlightWatch | None:
    """The watch of the flight the booking names now (dispatch/arrivals.py keeps it); None before the flight
    is first asked, or after staff changed the number. Reads `booking.flight_watch`: select it with a
    list of bookings."""
    try:
        watch = booking.flight_watch
    except FlightWatch.DoesNotExist:
        return None
    return watch if watch.flight_number == booking.flight_number else None


def time_booked(booking: Booking, watch: FlightWatch) -> datetime | None:
    """The pickup as booked, before the flight moved it: a pickup staff or an agent moved since the flight
    last did is the time booked (the next poll adopts it too)."""
    return watch.booked_pickup_at if booking.pickup_at == watch.followed_pickup_at else booking.pickup_at


def followed_flight(booking: Booking) -> FollowedFlight | None:
    """None for a ride that meets no flight."""
    if not meets_a_flight(booking):
        return None
    if not flights.tracking():
        return FollowedFlight(
            booking.flight_number, FlightStatus.NOT_TRACKED, pickup_as_booked=booking.pickup_at
        )
    watch = watch_of(booking)
    if watch is None:  # not asked yet (from a day before)
        return FollowedFlight(
            booking.flight_number, FlightStatus.SCHEDULED, pickup_as_booked=booking.pickup_at
        )
    return FollowedFlight(
        number=watch.flight_number,
        status=watch.status,
        scheduled_landing=watch.scheduled_landing,
        estimated_landing=watch.estimated_landing,
        actual_landing=watch.actual_landing,
        pickup_as_booked=time_booked(booking, watch),
        checked_at=watch.checked_at,
        unavailable_since=watch.unavailable_since,
    )


def duration(booking: Booking) -> timedelta:
    """How long the car is taken: the stored route's driving time and the waits at its stops, or the hours
    booked (an hourly hire, a tour) when longer. Assignment checks clashes with it, job links expire after
    it, the board and the calendar entries draw it."""
    hours = Decimal(0)
    if booking.booking_type == BookingType.HOURLY and booking.duration_hours:
        hours = booking.duration_hours
    elif booking.tour_slug and (tour := pricing.current_snapshot().tours.get(booking.tour_slug)):
        hours = tour.included_hours
    driving = timedelta(seconds=booking.duration_s or 0) + ride_stops.stopping(ride_stops.of(booking))
    return max(driving, timedelta(hours=float(hours)))
