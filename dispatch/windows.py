"""When a ride takes the car and its chauffeur: from its pickup for as long as booking/ride.py `duration`
says. Assignment checks overlaps with it; job links expire after it; the board draws it."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from booking import ride
from booking.models import Booking, BookingStatus
from fleet.models import Driver, Vehicle

# No ride lasts longer; an earlier pickup cannot reach into the ride being checked.
LONGEST_RIDE = timedelta(days=7)


@dataclass(frozen=True)
class RideWindow:
    start: datetime
    end: datetime

    def overlaps(self, other: "RideWindow") -> bool:
        return self.start < other.end and other.start < self.end  # back to back is no overlap


def ride_window(booking: Booking, pickup: datetime | None = None) -> RideWindow | None:
    start = pickup or booking.pickup_at
    return None if start is None else window_at(booking, start)


def window_at(booking: Booking, pickup: datetime) -> RideWindow:
    """The booking's ride were it picked up at `pickup`."""
    return RideWindow(pickup, pickup + ride.duration(booking))


def scheduled_window(booking: Booking) -> RideWindow:
    """The window of a ride found by its pickup time (a board's, a clash's): it has one."""
    window = ride_window(booking)
    if window is None:
        raise ValueError(f"{booking.reference} has no pickup time")
    return window


def clash(
    window: RideWindow, *, exclude: Booking, driver: Driver | None = None, vehicle: Vehicle | None = None
) -> Booking | None:
    """The first confirmed ride of this driver (or vehicle) that overlaps `window`, or None."""
    rides = Booking.objects.filter(
        status=BookingStatus.CONFIRMED, pickup_at__lt=window.end, pickup_at__gte=window.start - LONGEST_RIDE
    ).exclude(pk=exclude.pk)
    rides = rides.filter(driver=driver) if driver is not None else rides.filter(vehicle=vehicle)
    return next(
        (other for other in rides.order_by("pickup_at") if scheduled_window(other).overlaps(window)), None
    )
