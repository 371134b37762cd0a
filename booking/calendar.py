"""The ride as a calendar entry (RFC 5545, .ics): attached to the traveller's confirmation and to the
chauffeur's job, and served by the pages that show the ride. One UID per booking, and a SEQUENCE that
grows with each change, so a calendar updates the entry it has rather than adding a second."""

from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from icalendar import Calendar, Event

from booking import presentation, ride
from booking.models import Booking, BookingStatus

MEDIA_TYPE = "text/calendar"
# A ride without a route's driving time or booked hours still holds the calendar for this long.
SHORTEST = timedelta(hours=1)


def file_name(booking: Booking) -> str:
    return f"{booking.reference}.ics"


def ride_event(booking: Booking, *, locale: str, for_chauffeur: bool = False, link: str = "") -> bytes | None:
    """The booking's calendar file in `locale`, or None for a ride without a pickup time. `link` is the
    page the entry points to (the traveller's manage page, the chauffeur's job page)."""
    if booking.pickup_at is None:
        return None
    with translation.override(locale):
        calendar = Calendar()
        calendar.add("prodid", "-//Chauffeur booking//EN")
        calendar.add("version", "2.0")
        calendar.add("method", "PUBLISH")
        event = Event()
        event.add("uid", f"{booking.reference}{'-job' if for_chauffeur else ''}@{_host()}")
        event.add("dtstamp", timezone.now())
        event.add("sequence", int(booking.updated_at.timestamp()) if booking.updated_at else 0)
        event.add("dtstart", booking.pickup_at)
        event.add("dtend", booking.pickup_at + _length(booking))
        event.add("summary", _summary(booking, for_chauffeur))
        event.add("location", booking.origin)
        event.add("description", "\n".join(_details(booking, for_chauffeur, link)))
        event.add("status", "CANCELLED" if booking.status == BookingStatus.CANCELLED else "CONFIRMED")
        if link:
            event.add("url", link)
        calendar.add_component(event)
        return calendar.to_ical()


def _length(booking: Booking) -> timedelta:
    return max(ride.duration(booking), SHORTEST)


def _summary(booking: Booking, for_chauffeur: bool) -> str:
    route = f"{booking.origin} → {booking.destination_shown}"
    if for_chauffeur:
        return _("Job %(reference)s: %(route)s") % {"reference": booking.reference, "route": route}
    return _("Chauffeur ride %(reference)s: %(route)s") % {"reference": booking.reference, "route": route}


def _details(booking: Booking, for_chauffeur: bool, link: str) -> list[str]:
    lines = [_("Booking: %(reference)s") % {"reference": booking.reference}]
    if for_chauffeur:
        lines.append(
            _("Passenger: %(name)s, %(phone)s") % {"name": booking.name or "-", "phone": booking.phone or "-"}
        )
    for number, stop in enumerate(presentation.stops_shown(booking), start=1):
        lines.append(_("Stop %(number)s: %(stop)s") % {"number": number, "stop": stop})
    if booking.flight_number:
        lines.append(_("Flight: %(flight)s") % {"flight": booking.flight_number})
    if booking.notes and for_chauffeur:
        lines.append(_("Notes: %(notes)s") % {"notes": booking.notes})
    extras = presentation.to_bring(booking) if for_chauffeur else []
    if extras:
        lines.append(_("To bring: %(extras)s") % {"extras": ", ".join(extras)})
    if link:
        lines.append(link)
    return lines


def _host() -> str:
    return urlsplit(settings.PUBLIC_BASE_URL).hostname or "localhost"
