"""How long a ride takes the car and its chauffeur: from its pickup for its stored route's driving time and
the waits planned at its stops, or its booked hours (an hourly hire, a tour) when longer. Assignment checks
overlaps with it; job links expire after it; the board draws it."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from booking import ride_stops
from booking.models import Booking
from pricing import services as pricing
from pricing.quote import BookingType

# No ride lasts longer; an earlier pickup cannot reach into the ride being checked.
LONGEST_RIDE = timedelta(days=7)


@dataclass(frozen=True)
class RideWindow:
    start: datetime
    end: datetime

    def overlaps(self, other: "RideWindow") -> bool:
        return self.start < other.end and other.start < self.end  # back to back is no overlap


def ride_duration(booking: Booking) -> timedelta:
    """How long the car is taken: the stored route's driving time and the stops' waits, or the hours booked
    when longer."""
    hours = Decimal(0)
    if booking.booking_type == BookingType.HOURLY and booking.duration_hours:
        hours = booking.duration_hours
    elif booking.tour_slug and (tour := pricing.current_snapshot().tours.get(booking.tour_slug)):
        hours = tour.included_hours
    driving = timedelta(seconds=booking.duration_s or 0) + ride_stops.stopping(ride_stops.of(booking))
    return max(driving, timedelta(hours=float(hours)))


def ride_window(booking: Booking, pickup: datetime | None = None) -> RideWindow | None:
    start = pickup or booking.pickup_at
    return None if start is None else window_at(booking, start)


def window_at(booking: Booking, pickup: datetime) -> RideWindow:
    """The booking's ride were it picked up at `pickup`."""
    return RideWindow(pickup, pickup + ride_duration(booking))


def scheduled_window(booking: Booking) -> RideWindow:
    """The window of a ride found by its pickup time (a board's, a clash's): it has one."""
    window = ride_window(booking)
    if window is None:
        raise ValueError(f"{booking.reference} has no pickup time")
    return window
