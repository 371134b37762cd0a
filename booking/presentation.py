"""Bookings in people's words, for the pages, the e-mails and the admin: states, vehicle and tour names, and
the price lines in the active language (the quote engine's own labels are the API's English). Travellers
read a line's short label; staff read it with its numbers, worded from the line's params at display. A
booking's state with what it still owes is payments' (payments/owed.py)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from math import ceil

from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext_lazy as _

from booking import ride_stops
from booking.models import Booking, BookingStatus
from pricing import services as pricing
from pricing.lines import LineKind, PricedLine
from pricing.quote import EXTRA, OFFER, STOP, Quote
from pricing.snapshot import ExtraOffer
from sitekit.l10n import money

# A booking's state as its traveller reads it on the pages (never the bare code).
STATUS_WORDS = {
    BookingStatus.PENDING_PAYMENT: _("Awaiting payment"),
    BookingStatus.PAID: _("Paid"),
    BookingStatus.CONFIRMED: _("Confirmed: your chauffeur is assigned"),
    BookingStatus.COMPLETED: _("Ride completed"),
    BookingStatus.CANCELLED: _("Cancelled"),
    BookingStatus.EXPIRED: _("Not booked: payment not completed"),
    BookingStatus.PAYMENT_FAILED: _("Payment failed"),
}
# On a company's account nothing is paid now: the company's monthly collective invoice bills the ride.
ON_ACCOUNT_WORDS = {
    BookingStatus.PENDING_PAYMENT: _("Waiting for your confirmation: see the link we e-mailed you"),
    BookingStatus.PAID: _("Booked on account, invoiced monthly"),
    BookingStatus.CONFIRMED: _("Confirmed, on account, invoiced monthly"),
    BookingStatus.COMPLETED: _("Ride completed, on account, invoiced monthly"),
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
    "price_by_hand": _("Price adjustment: {reason}"),  # the reason staff gave, printed as typed
    EXTRA: _("Extra"),  # worded by extra_label from its params
    STOP: _("Stop"),  # worded by stop_label from its params
    OFFER: _("As offered"),  # printed as staff wrote it in the offer (its label)
}


# The staff's wording, from a line's params (pricing.quote.PriceLine.params). A stored line without params
# lacks the numbers and falls back to the traveller's label above.
DETAILED_LABELS = {
    "base_fare": _("Base fare"),
    "distance": _("Distance {km} km ({bands})"),
    "minimum_fare": _("Top-up to the minimum fare of {minimum}"),
    "outside_zone_a": _("Outside Zone A surcharge"),
    "hourly": _("{hours} h × {rate}"),
    "distance_minimum": _("Minimum: this ride by distance costs {by_distance}"),
    "tour": _("Tour: {tour} ({hours} h)"),
    "waiting": _("Waiting {minutes} min ({blocks} × {block_minutes} min × {rate})"),
    "rounding": _("Rounded up to {step}"),
    "price_by_hand": _("Price set by hand (the tariff's {tariff}): {reason}"),
}
MONEY_PARAMS = {"minimum", "rate", "by_distance", "step", "tariff"}
NUMBER_PARAMS = {"km", "hours"}


@dataclass(frozen=True)
class Line:
    """A priced line as its reader reads it: worded, with what it is and its VAT rate."""

    label: str
    amount: Decimal
    kind: LineKind | None = None
    vat_rate: Decimal | None = None


def vehicle_name(code: str) -> str:
    tariff = pricing.current_snapshot().tariffs.get(code)
    return tariff.display_name if tariff else code


# A class's name in the language of whoever reads the text it is put in (a refusal read later).
class_name = lazy(vehicle_name, str)


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


def price_lines(booking: Booking, *, detailed: bool = False, stop_addresses: bool = True) -> list[Line]:
    """The booking's price, line by line (its quote's priced lines: the fare, extras, waiting booked, a price
    set by hand), in the active language; a rounding of nothing is left out. The pages, the e-mails, the
    admin and the ride's invoice read these. `detailed` (staff) words each line with its numbers where the
    stored line has them; without `stop_addresses` a stop's line is its number (an invoice names the stops
    above its lines)."""
    values = {
        "km": number(booking.distance_km),
        "hours": number(booking.duration_hours),
        "tour": tour_name(booking.tour_slug),
        "stops": [stop.address for stop in ride_stops.of(booking)] if stop_addresses else [],
    }
    return quote_lines(booking.quote, values=values, detailed=detailed)


def quote_lines(quote: Quote, *, values: dict | None = None, detailed: bool = True) -> list[Line]:
    """A quote's lines in the active language; `values` fill the short labels of lines without params."""
    return [
        Line(line_label(line, values or {}, detailed=detailed), line.amount, line.kind, line.vat_rate)
        for line in quote.priced_lines
        if not (line.code == "rounding" and line.amount == 0)
    ]


def line_label(line: PricedLine, values: dict, *, detailed: bool) -> str:
    if line.code == EXTRA and "name_en" in line.params:
        return extra_label(line.params, detailed=detailed)
    if line.code == STOP:
        return stop_label(line.params, values.get("stops", ()), detailed=detailed)
    if line.code == OFFER:
        return line.label
    if detailed:
        try:
            return str(DETAILED_LABELS[line.code]).format(**_worded(line))
        except KeyError:  # an unknown code, or a line stored without its params
            pass
    own = {key: value for key, value in _worded(line).items() if key in ("km", "hours", "tour", "reason")}
    values = {**own, **{key: value for key, value in values.items() if value}}  # the booking's own first
    try:
        return str(LINE_LABELS[line.code]).format(**values)
    except KeyError:
        return line.label


def extra_label(params: Mapping, *, detailed: bool = False) -> str:
    """An extra as its line names it: "Child seat × 2"; staff read its unit price too."""
    name = extra_name(params)
    quantity = int(params["quantity"])
    if detailed:
        return f"{name}: {quantity} × {money(params['unit_price'])}"
    return f"{name} × {quantity}" if quantity > 1 else str(name)


def stop_label(params: Mapping, addresses: Sequence[str] = (), *, detailed: bool = False) -> str:
    """A stop as its line names it: "Stop 1: Hotel Sacher, waiting 15 min" (the address from the booking, as
    long as it keeps its personal data); staff read what it costs."""
    number = int(params["number"])
    label = str(_("Stop {number}")).format(number=number)
    if number <= len(addresses):
        label = str(_("Stop {number}: {address}")).format(number=number, address=addresses[number - 1])
    minutes = int(params["minutes"])
    if minutes:
        label = str(_("{stop}, waiting {minutes} min")).format(stop=label, minutes=minutes)
    if not detailed:
        return label
    if params.get("included"):
        return str(_("{stop} (included in the hire)")).format(stop=label)
    return str(_("{stop}: stop fee {fee} + {blocks} × {block_minutes} min × {rate}")).format(
        stop=label,
        fee=money(params["fee"]),
        blocks=params["blocks"],
        block_minutes=params["block_minutes"],
        rate=money(params["rate"]),
    )


def stops_shown(booking: Booking) -> list[str]:
    """The stops on the way, in order, in the active language: "Hotel Sacher, waiting 15 min"."""
    return [
        str(_("{stop}, waiting {minutes} min")).format(stop=stop.address, minutes=stop.wait_minutes)
        if stop.wait_minutes
        else stop.address
        for stop in ride_stops.of(booking)
    ]


def to_bring(booking: Booking) -> list[str]:
    """The booking's extras as the chauffeur reads them, in the active language: "Child seat × 2"."""
    return [extra_label(line.params) for line in booking.quote.extra_lines]


def extra_price(offer: ExtraOffer) -> str:
    """What an extra costs, as the forms offer it: "10,00 € each", "15,00 € per booking"."""
    words = _("{price} each") if offer.per_piece else _("{price} per booking")
    return str(words).format(price=money(offer.price))


def _extra_name(params: Mapping) -> str:
    return params["name_de"] if get_language() == "de" else params["name_en"]


extra_name = lazy(_extra_name, str)  # worded when read: a refusal staff read later


def _worded(line: PricedLine) -> dict:
    """A line's params as the reader writes them: 2,00 € and 21,8 in German."""
    worded = {}
    for key, value in line.params.items():
        if key in MONEY_PARAMS:
            worded[key] = money(value)
        elif key in NUMBER_PARAMS:
            worded[key] = number(Decimal(value))
        elif key == "bands":
            worded[key] = " + ".join(f"{number(Decimal(km))} km × {money(rate)}" for km, rate in value)
        else:
            worded[key] = value
    if "name_en" in line.params:
        worded["tour"] = line.params["name_de"] if get_language() == "de" else line.params["name_en"]
    if line.code == "distance" and not line.params.get("bands"):
        worded.pop("bands", None)  # no km charged: the short label says it all
    return worded


def vat_note(booking: Booking) -> str:
    return quote_vat_note(booking.quote)


def quote_vat_note(quote: Quote) -> str:
    """ "includes 10 % VAT: 8,41 € (net 84,09 €)", in the active language."""
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
