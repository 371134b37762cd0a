"""What staff and the chauffeur read of the flight a pickup meets, in a few words: on the dispatch board's
card and the job page. A cancelled or diverted flight, or flight data that stopped coming, is an alert."""

from dataclasses import dataclass

from django.utils.translation import gettext as _

from booking import ride
from booking.models import Booking, FlightStatus, FlightWatch
from dispatch.arrivals import REAL_CHANGE
from flights import services as flights
from sitekit import l10n


@dataclass(frozen=True)
class Badge:
    words: str
    alert: bool = False


def badge(booking: Booking) -> Badge | None:
    """None for a ride whose flight is not followed yet (or meets none); select `flight_watch` with a list
    of rides."""
    watch = ride.watch_of(booking)
    untracked = watch is None and ride.meets_a_flight(booking) and not flights.tracking()
    if untracked or (watch is not None and watch.status == FlightStatus.NOT_TRACKED):  # or a registration
        return Badge(
            _("Flight %(flight)s not followed: the pickup stays") % {"flight": booking.flight_number}
        )
    if watch is None or booking.pickup_at is None:
        return None
    flight = watch.flight_number
    if watch.status == FlightStatus.CANCELLED:
        return Badge(_("Flight %(flight)s cancelled") % {"flight": flight}, alert=True)
    if watch.status == FlightStatus.DIVERTED:
        where = watch.arrival_airport or "?"
        return Badge(
            _("Flight %(flight)s diverted to %(airport)s") % {"flight": flight, "airport": where}, True
        )
    if watch.unavailable_since is not None:
        since = l10n.time_of_day(watch.unavailable_since)
        return Badge(
            _("Flight %(flight)s: no flight data since %(time)s") % {"flight": flight, "time": since}, True
        )
    if watch.status == FlightStatus.UNKNOWN:
        return Badge(_("Flight %(flight)s not found for that day") % {"flight": flight}, alert=True)
    words = _landing_words(watch)
    booked = ride.time_booked(booking, watch) or booking.pickup_at
    moved = booking.pickup_at - booked
    if abs(moved) >= REAL_CHANGE:
        minutes = round(moved.total_seconds() / 60)
        words += " · " + _("pickup moved %(minutes)s min") % {"minutes": f"{minutes:+d}"}
    return Badge(words)


def _landing_words(watch: FlightWatch) -> str:
    flight = watch.flight_number
    if watch.actual_landing is not None:
        return _("Flight %(flight)s landed %(time)s") % {
            "flight": flight,
            "time": l10n.time_of_day(watch.actual_landing),
        }
    expected = watch.estimated_landing or watch.scheduled_landing
    if expected is None:
        return _("Flight %(flight)s followed") % {"flight": flight}
    return _("Flight %(flight)s lands %(time)s") % {"flight": flight, "time": l10n.time_of_day(expected)}
