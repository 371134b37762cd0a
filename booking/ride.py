"""The ride's day as the traveller, the agent and staff read it: the state the chauffeur last moved it to
and when each state was reached (booking.models.RideStep; dispatch/ride_day.py makes the moves)."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from booking import ride_stops
from booking.models import Booking, RideState
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
