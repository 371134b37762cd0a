"""Bookings in a traveller's words, for the pages and the e-mails: states, vehicle and tour names, and the
price lines in the active language (the quote engine's own labels are the API's English)."""

from dataclasses import dataclass
from decimal import Decimal
from math import ceil

from django.utils.formats import number_format
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext_lazy as _

from booking.models import Booking, BookingStatus
from chauffeur.l10n import money
from pricing import services as pricing
from pricing.quote import Quote

STATUS_WORDS = {
    BookingStatus.PENDING_PAYMENT: _("awaiting payment"),
    BookingStatus.PAID: _("paid"),
    BookingStatus.CONFIRMED: _("confirmed"),
    BookingStatus.COMPLETED: _("completed"),
    BookingStatus.CANCELLED: _("cancelled"),
    BookingStatus.EXPIRED: _("not booked: payment not completed"),
    BookingStatus.PAYMENT_FAILED: _("payment failed"),
}

# By the quote line's stable code; {km}, {hours} and {tour} are filled in where the line needs them.
LINE_LABELS = {
    "base_fare": _("Base fare"),
    "distance": _("Distance {km} km"),
    "minimum_fare": _("Top-up to the minimum fare"),
    "outside_zone_a": _("Surcharge for a ride outside Vienna"),
    "hourly": _("{hours} hours with chauffeur"),
    "distance_minimum": _("Top-up to the price of this distance"),
    "tour": _("Tour: {tour}"),
    "waiting": _("Waiting time"),
    "rounding": _("Rounding"),
}


@dataclass(frozen=True)
class Line:
    label: str
    amount: Decimal


def status_words(booking: Booking) -> str:
    return str(STATUS_WORDS[BookingStatus(booking.status)])


def vehicle_name(code: str) -> str:
    tariff = pricing.current_snapshot().tariffs.get(code)
    return tariff.display_name if tariff else code


def tour_name(slug: str) -> str:
    tour = pricing.current_snapshot().tours.get(slug)
    if tour is None:
        return slug
    return tour.name_de if get_language() == "de" else tour.name_en


def service(booking: Booking) -> str:
    """What was booked, as the form offered it: a transfer, hours with a chauffeur, or a tour."""
    if booking.tour_slug:
        tour = pricing.current_snapshot().tours.get(booking.tour_slug)
        if tour is None:
            return tour_name(booking.tour_slug)
        text = ngettext(
            "Tour: {name} ({hours} hour)", "Tour: {name} ({hours} hours)", ceil(tour.included_hours)
        )
        return text.format(name=tour_name(booking.tour_slug), hours=number(tour.included_hours))
    if booking.booking_type == "hourly":
        # Hours start at 2 (MIN_HOURLY_HOURS): the plural form is always the one needed.
        return str(_("By the hour: {hours} hours")).format(hours=number(booking.duration_hours))
    return str(_("Transfer"))


def price_lines(booking: Booking) -> list[Line]:
    """The booking's price, line by line, in the active language; a rounding of nothing is left out."""
    quote: Quote = booking.quote
    values = {
        "km": number(booking.distance_km),
        "hours": number(booking.duration_hours),
        "tour": tour_name(booking.tour_slug),
    }
    return [
        Line(str(LINE_LABELS.get(line.code, line.label)).format(**values), line.amount)
        for line in quote.lines
        if not (line.code == "rounding" and line.amount == 0)
    ]


def vat_note(booking: Booking) -> str:
    quote = booking.quote
    rate = number(quote.vat_rate * 100)
    return str(_("includes {rate} % VAT: {vat} (net {net})")).format(
        rate=rate, vat=money(quote.vat), net=money(quote.net)
    )


def number(value: Decimal | None) -> str:
    """3.50 → "3,5" in German, "3.5" in English; no trailing zeros."""
    if value is None:
        return ""
    plain = Decimal(format(Decimal(value).normalize(), "f"))  # 10.000 → 10, never 1E+1
    return number_format(plain, use_l10n=True)
