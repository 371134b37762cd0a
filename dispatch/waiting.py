"""The wait at the pickup: what the price includes (longer when meeting a flight at the airport), from when
it counts, and when a no-show may be recorded. The job page, billing and the dispatch board all reckon it
here."""

from datetime import datetime, timedelta

from booking import ride
from booking.models import Booking, RideState
from dispatch.models import RideDayPolicy, ride_day_policy


def included_waiting(booking: Booking, policy: RideDayPolicy | None = None) -> timedelta:
    """Waiting the price includes, and the wait before a no-show: longer when the chauffeur meets a flight
    at the airport. `policy`: the one already read, for a list of rides (the dispatch board)."""
    policy = policy or ride_day_policy()
    minutes = (
        policy.included_waiting_flight_minutes
        if ride.meets_a_flight(booking)
        else policy.included_waiting_minutes
    )
    return timedelta(minutes=minutes)


def waiting_starts(booking: Booking, arrived_at: datetime) -> datetime:
    """Waiting counts from the pickup time, or from the chauffeur's arrival when they came late. At a flight
    whose landing is known it counts from the landing instead: a flight later than its pickup costs the
    traveller no waiting, and the time to get out is part of what is included."""
    landed = landing(booking)
    start = landed if landed is not None else booking.pickup_at
    return max(arrived_at, start) if start else arrived_at


def landing(booking: Booking) -> datetime | None:
    """When the flight the pickup meets landed, as its provider said (dispatch/arrivals.py)."""
    if not ride.meets_a_flight(booking):
        return None
    watch = ride.watch_of(booking)
    return watch.actual_landing if watch is not None else None


def no_show_from(booking: Booking, progress: ride.RideProgress) -> datetime | None:
    """When the chauffeur may record a no-show: after arriving and waiting what is included."""
    arrived = progress.at(RideState.ARRIVED)
    return None if arrived is None else waiting_starts(booking, arrived) + included_waiting(booking)
