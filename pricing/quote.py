"""The quote engine (docs/decisions.md §4): a pure function from a tariff snapshot and a request to a
price. Decimal throughout; lines sum to the gross before rounding, and the `rounding` line closes the gap.
The limits of what can be priced live here, and every door's declaration reads them."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from types import MappingProxyType

from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from pricing.lines import LineKind, PricedLine
from pricing.money import CURRENCY, round_up, to_cent
from pricing.snapshot import ExtraOffer, PricingSnapshot, TariffRates, TourOffer

TENTH = Decimal("0.1")
MAX_DISTANCE_KM = Decimal("10000")
WAITING_BLOCK_MINUTES = 15  # waiting is billed per started quarter hour
MAX_WAIT_MINUTES = 24 * 60
HOURLY_BLOCK = Decimal("0.5")  # hourly hire is billed per started half hour
# The contract's bounds of an hourly hire; a tariff may ask for more (Tariff.minimum_hours), never fewer.
MIN_HOURLY_HOURS, MAX_HOURLY_HOURS = Decimal("2"), Decimal("24")


class BookingType(StrEnum):
    DISTANCE = "distance"
    HOURLY = "hourly"


# What a ride may carry and add, as every door declares it; a class seats and carries less (VehicleClass).
MAX_PASSENGERS = MAX_LUGGAGE = 99
MAX_EXTRA_QUANTITY = 9
MAX_EXTRAS = 20  # different extras on one ride
EXTRA = "extra"  # the code of an extra's line; its params name which
# Stops on the way: as many as a tariff allows (Tariff.max_stops), never more than a route may have (places).
MAX_STOPS = 10
MAX_STOP_WAIT_MINUTES = 4 * 60
STOP = "stop"  # the code of a stop's line


@dataclass(frozen=True)
class ExtraChoice:
    code: str
    quantity: int = 1


@dataclass(frozen=True)
class PriceRequest:
    vehicle_class: str
    distance_km: Decimal
    booking_type: BookingType = BookingType.DISTANCE
    in_zone_a: bool = True
    wait_minutes: int = 0
    duration_hours: Decimal | None = None
    tour_slug: str | None = None
    passengers: int | None = None  # None: not said (the class's seats are not checked)
    luggage: int | None = None
    extras: tuple[ExtraChoice, ...] = ()
    stop_waits: tuple[int, ...] = ()  # a stop on the way each, in order: the minutes planned there
    booked_stops: int = 0  # the stops a booking priced again has: a class maximum lowered since keeps them
    # Extras a booking has that staff have since withdrawn: kept, at the price they were booked at.
    booked_extras: Mapping[str, ExtraOffer] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class PriceLine:
    """`label` is the API's English text; `params` are the line's numbers (exact text) by name, so that
    pages, e-mails and the admin can word the line in the reader's language (booking/presentation.py)."""

    code: str
    label: str
    amount: Decimal
    params: dict = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Quote:
    price: Decimal  # gross EUR, rounded up to the tariff's step
    net: Decimal
    vat: Decimal
    vat_rate: Decimal
    vehicle_class: str
    booking_type: BookingType
    lines: tuple[PriceLine, ...]
    currency: str = CURRENCY

    @property
    def priced_lines(self) -> tuple[PricedLine, ...]:
        """The quote's lines as priced lines, in the engine's order, at the quote's VAT rate."""
        return tuple(
            PricedLine(LINE_KINDS[line.code], line.code, line.amount, self.vat_rate, line.label, line.params)
            for line in self.lines
        )

    @property
    def extra_lines(self) -> tuple[PriceLine, ...]:
        return tuple(line for line in self.lines if line.code == EXTRA)

    @property
    def extras(self) -> tuple[ExtraChoice, ...]:
        """The extras this price includes, as they were asked for (a new price of the ride asks again)."""
        return tuple(
            ExtraChoice(line.params["code"], int(line.params["quantity"])) for line in self.extra_lines
        )

    def as_record(self) -> dict:
        """The quote as stored with a booking: JSON in the engine's own names, amounts as exact text."""
        return {
            "price": str(self.price),
            "net": str(self.net),
            "vat": str(self.vat),
            "vat_rate": str(self.vat_rate),
            "currency": self.currency,
            "vehicle_class": self.vehicle_class,
            "booking_type": str(self.booking_type),
            "lines": [
                {"code": line.code, "label": line.label, "amount": str(line.amount), "params": line.params}
                for line in self.lines
            ],
        }

    @classmethod
    def from_record(cls, record: dict) -> "Quote":
        return cls(
            price=Decimal(record["price"]),
            net=Decimal(record["net"]),
            vat=Decimal(record["vat"]),
            vat_rate=Decimal(record["vat_rate"]),
            currency=record["currency"],
            vehicle_class=record["vehicle_class"],
            booking_type=BookingType(record["booking_type"]),
            lines=tuple(  # a stored line without params reads as a line with none
                PriceLine(line["code"], line["label"], Decimal(line["amount"]), line.get("params", {}))
                for line in record["lines"]
            ),
        )


# A price staff set by hand (a negotiated or corrected price): its own line, the difference to the tariff's
# price, so the lines still sum to the total; the reason is printed with it.
PRICE_BY_HAND = "price_by_hand"
MIN_PRICE_BY_HAND, MAX_PRICE_BY_HAND = Decimal("1.00"), Decimal("99999.99")
MAX_REASON_LENGTH = 150

# A line of an offer staff priced for a trip the tariff could not (quote requests), labelled as they wrote.
OFFER = "offer"

# What each of the engine's lines is; every code a quote was ever stored with is here.
LINE_KINDS = {
    "base_fare": LineKind.FARE,
    "distance": LineKind.FARE,
    "minimum_fare": LineKind.FARE,
    "hourly": LineKind.FARE,
    "distance_minimum": LineKind.FARE,
    "tour": LineKind.FARE,
    "rounding": LineKind.FARE,
    "outside_zone_a": LineKind.EXTRA,
    EXTRA: LineKind.EXTRA,
    STOP: LineKind.EXTRA,
    "waiting": LineKind.WAITING,
    PRICE_BY_HAND: LineKind.ADJUSTMENT,
    OFFER: LineKind.FARE,
}


def offered(vehicle_class: str, lines: Sequence[tuple[str, Decimal]], vat_rate: Decimal) -> Quote:
    """The price of an offer staff wrote line by line: the lines' sum, net and VAT of it at the class's rate
    (one rate, as every ride's)."""
    price = to_cent(sum((amount for _label, amount in lines), Decimal(0)))
    net = to_cent(price / (1 + vat_rate))
    return Quote(
        price=price,
        net=net,
        vat=price - net,
        vat_rate=vat_rate,
        vehicle_class=vehicle_class,
        booking_type=BookingType.DISTANCE,
        lines=tuple(PriceLine(OFFER, label, to_cent(amount), {}) for label, amount in lines),
    )


def is_offered(quote: Quote) -> bool:
    """Whether staff priced it as an offer: no tariff prices it again."""
    return any(line.code == OFFER for line in quote.lines)


@dataclass(frozen=True)
class PriceByHand:
    amount: Decimal  # gross EUR, the whole price
    reason: str  # why, in the staff's words (printed on the invoice)


def with_price_by_hand(quote: Quote, price: PriceByHand) -> Quote:
    """The tariff's quote at the price staff set: its lines, then the difference as a line of its own; net and
    VAT of the new price at the tariff's rate."""
    amount = price.amount
    if amount != to_cent(amount) or not MIN_PRICE_BY_HAND <= amount <= MAX_PRICE_BY_HAND:
        raise DomainError(
            format_lazy(
                _("A price set by hand is between {least} and {most} euros, in whole cents."),
                least=MIN_PRICE_BY_HAND,
                most=MAX_PRICE_BY_HAND,
            ),
            field="price",
        )
    amount = to_cent(amount)  # 90 typed is 90.00, as every price is stored
    reason = " ".join(price.reason.split())
    if not reason or len(reason) > MAX_REASON_LENGTH:
        raise DomainError(
            format_lazy(
                _("Give the reason for the price (at most {count} characters)."), count=MAX_REASON_LENGTH
            ),
            field="price_reason",
        )
    tariff = without_price_by_hand(quote)
    params = {"reason": reason, "tariff": str(tariff.price)}
    line = PriceLine(PRICE_BY_HAND, f"Price set by staff: {reason}", amount - tariff.price, params)
    return _repriced(quote, amount, (*tariff.lines, line))


def price_by_hand_of(quote: Quote) -> PriceByHand | None:
    """The price staff set by hand on this quote, if any."""
    for line in quote.lines:
        if line.code == PRICE_BY_HAND:
            return PriceByHand(quote.price, line.params.get("reason", ""))
    return None


def without_price_by_hand(quote: Quote) -> Quote:
    """The quote at the tariff's price again (as it was before staff set one)."""
    line = next((line for line in quote.lines if line.code == PRICE_BY_HAND), None)
    if line is None:
        return quote
    lines = tuple(item for item in quote.lines if item.code != PRICE_BY_HAND)
    return _repriced(quote, Decimal(line.params["tariff"]), lines)


def _repriced(quote: Quote, price: Decimal, lines: tuple[PriceLine, ...]) -> Quote:
    """The quote at another gross price: net and VAT of that price at the quote's rate."""
    net = to_cent(price / (1 + quote.vat_rate))
    return replace(quote, price=price, net=net, vat=price - net, lines=lines)


def compute_quote(snapshot: PricingSnapshot, request: PriceRequest) -> Quote:
    tariff = _tariff(snapshot, request.vehicle_class)
    _ensure_room(snapshot, tariff, request)
    stops = _stop_lines(tariff, request)
    extras = _extra_lines(snapshot, tariff, request)
    if request.tour_slug:
        if request.booking_type is BookingType.HOURLY:
            raise DomainError(
                _("A tour has a fixed price and cannot be booked by the hour."), field="tour_slug"
            )
        lines = [_tour_line(_tour(snapshot, request.tour_slug, tariff), tariff)]
    elif request.booking_type is BookingType.HOURLY:
        lines = _hourly_lines(tariff, request)
    else:
        lines = _distance_lines(tariff, request.distance_km, request.in_zone_a)
    lines.extend(stops)
    if request.wait_minutes > 0:
        lines.append(_waiting_line(tariff, request.wait_minutes))

    gross_before_rounding = sum((line.amount for line in lines), Decimal("0"))
    price = round_up(gross_before_rounding, tariff.rounding_step)
    step = tariff.rounding_step
    lines.append(
        PriceLine("rounding", f"Rounded up to {step} EUR", price - gross_before_rounding, {"step": str(step)})
    )
    # extras after the rounding: each costs exactly its price
    price += sum((line.amount for line in extras), Decimal("0"))
    return _with_vat(tariff, price, [*lines, *extras], request.booking_type)


def compute_waiting(snapshot: PricingSnapshot, vehicle_class: str, wait_minutes: int) -> Quote:
    """Waiting billed after a ride (dispatch/ride_billing.py): the quote's waiting line alone, at the tariff's
    rate per started quarter hour, VAT included as in every quote. Not rounded to the tariff's step: the rate
    staff set is what a quarter hour costs. A class no longer offered still prices the waiting of its
    rides."""
    tariff = snapshot.tariffs.get(vehicle_class)
    if tariff is None:
        raise DomainError(
            format_lazy(_("Vehicle class {code!r} has no tariff."), code=vehicle_class), field="vehicle_class"
        )
    line = _waiting_line(tariff, max(0, wait_minutes))
    return _with_vat(tariff, line.amount, [line], BookingType.DISTANCE)


def _with_vat(tariff: TariffRates, price: Decimal, lines: list[PriceLine], booking_type) -> Quote:
    net = to_cent(price / (1 + tariff.vat_rate))
    return Quote(
        price=price,
        net=net,
        vat=price - net,
        vat_rate=tariff.vat_rate,
        vehicle_class=tariff.vehicle_class,
        booking_type=booking_type,
        lines=tuple(lines),
    )


def _tariff(snapshot: PricingSnapshot, vehicle_class: str) -> TariffRates:
    tariff = snapshot.tariffs.get(vehicle_class)
    if tariff is None or not tariff.active:
        offered = ", ".join(code for code, item in snapshot.tariffs.items() if item.active)
        raise DomainError(
            format_lazy(
                _("Vehicle class {code!r} is not offered; choose one of: {offered}."),
                code=vehicle_class,
                offered=offered,
            ),
            field="vehicle_class",
        )
    return tariff


def _tour(snapshot: PricingSnapshot, slug: str, tariff: TariffRates) -> TourOffer:
    tour = snapshot.tours.get(slug)
    offered = ", ".join(code for code, item in snapshot.tours.items() if item.active)
    if tour is None or not tour.active:
        raise DomainError(
            format_lazy(
                _("There is no tour {slug!r}; tours offered: {offered}."), slug=slug, offered=offered
            ),
            code="unknown_tour",
            field="tour_slug",
        )
    if tariff.vehicle_class not in tour.prices:
        raise DomainError(
            format_lazy(
                _("The tour {slug!r} is not offered with vehicle class {code!r}."),
                slug=slug,
                code=tariff.vehicle_class,
            ),
            code="unknown_tour",
            field="tour_slug",
        )
    return tour


def _distance_lines(tariff: TariffRates, distance_km: Decimal, in_zone_a: bool) -> list[PriceLine]:
    km = distance_km.quantize(TENTH, ROUND_HALF_UP)
    bands, charge = [], Decimal("0")
    for band in tariff.bands:
        upper = km if band.to_km is None else min(km, band.to_km)
        km_in_band = upper - band.from_km
        if km_in_band <= 0:
            continue
        charge += km_in_band * band.rate_per_km
        bands.append([str(km_in_band), str(band.rate_per_km)])
    charge = to_cent(charge)
    parts = " + ".join(f"{band_km} km × {rate}" for band_km, rate in bands)
    label = f"Distance {km} km" + (f" ({parts} EUR)" if parts else "")
    lines = [
        PriceLine("base_fare", "Base fare", tariff.base_fare),
        PriceLine("distance", label, charge, {"km": str(km), "bands": bands}),
    ]
    shortfall = tariff.minimum_fare - (tariff.base_fare + charge)
    if shortfall > 0:
        minimum = tariff.minimum_fare
        lines.append(
            PriceLine("minimum_fare", f"Minimum fare {minimum} EUR", shortfall, {"minimum": str(minimum)})
        )
    if not in_zone_a:
        lines.append(PriceLine("outside_zone_a", "Outside Zone A surcharge", tariff.outside_zone_a_surcharge))
    return lines


def _hourly_line(tariff: TariffRates, duration_hours: Decimal | None) -> PriceLine:
    if duration_hours is None:
        raise DomainError(_("An hourly booking needs its duration in hours."), field="duration_hours")
    if duration_hours < tariff.minimum_hours:
        raise DomainError(
            f"An hourly booking lasts at least {tariff.minimum_hours} hours.",
            field="duration_hours",
            shown=format_lazy(
                _("An hourly booking lasts at least {hours} hours."),
                hours=number_format(tariff.minimum_hours.normalize(), use_l10n=True),
            ),
        )
    hours = round_up(duration_hours, HOURLY_BLOCK)
    rate = tariff.hourly_rate
    return PriceLine(
        "hourly", f"{hours} h × {rate} EUR", hours * rate, {"hours": str(hours), "rate": str(rate)}
    )


def _hourly_lines(tariff: TariffRates, request: PriceRequest) -> list[PriceLine]:
    """Hours at the hourly rate, but never less than the same ride by distance: hiring by the hour must
    not make a long drive cheaper (a 2-hour hire to Munich is a 430 km ride)."""
    hourly = _hourly_line(tariff, request.duration_hours)
    by_distance = sum(
        (line.amount for line in _distance_lines(tariff, request.distance_km, request.in_zone_a)),
        Decimal("0"),
    )
    if by_distance <= hourly.amount:
        return [hourly]
    label = f"Minimum: this ride by distance costs {by_distance} EUR"
    params = {"by_distance": str(by_distance)}
    return [hourly, PriceLine("distance_minimum", label, by_distance - hourly.amount, params)]


def _tour_line(tour: TourOffer, tariff: TariffRates) -> PriceLine:
    params = {"name_en": tour.name_en, "name_de": tour.name_de, "hours": str(tour.included_hours)}
    return PriceLine(
        "tour", f"{tour.name_en} ({tour.included_hours} h)", tour.prices[tariff.vehicle_class], params
    )


def _started_blocks(minutes: int) -> int:
    """The started quarter hours waiting is billed by: a stop's planned wait and the waiting after a ride."""
    return -(-minutes // WAITING_BLOCK_MINUTES)


def _waiting_line(tariff: TariffRates, wait_minutes: int) -> PriceLine:
    blocks = _started_blocks(wait_minutes)
    rate = tariff.waiting_rate
    return PriceLine(
        "waiting",
        f"Waiting {wait_minutes} min ({blocks} × {WAITING_BLOCK_MINUTES} min × {rate} EUR)",
        blocks * rate,
        {
            "minutes": wait_minutes,
            "blocks": blocks,
            "block_minutes": WAITING_BLOCK_MINUTES,
            "rate": str(rate),
        },
    )


def _stop_lines(tariff: TariffRates, request: PriceRequest) -> list[PriceLine]:
    """A line per stop on the way, in order: on a ride by distance the tariff's stop fee and the wait planned
    there at the waiting rate; a hire by the hour or a tour includes its stops (a line of nothing)."""
    most = max(tariff.max_stops, request.booked_stops)
    if len(request.stop_waits) > most:
        said = (
            _("A ride in class {code!r} may stop at most {most} times on the way, not {count}.")
            if most
            else _(
                "A ride in class {code!r} makes no stops on the way; book the stops as rides of their own."
            )
        )
        raise DomainError(
            format_lazy(said, code=tariff.vehicle_class, most=most, count=len(request.stop_waits)),
            code="too_many_stops",
            field="stops",
            extra={"maximumStops": most},
        )
    included = bool(request.tour_slug) or request.booking_type is BookingType.HOURLY
    rate, fee = tariff.waiting_rate, tariff.stop_fee
    lines = []
    for number, minutes in enumerate(request.stop_waits, start=1):
        if not 0 <= minutes <= MAX_STOP_WAIT_MINUTES:
            raise DomainError(
                format_lazy(_("A wait at a stop lasts 0 to {most} minutes."), most=MAX_STOP_WAIT_MINUTES),
                field="stops",
            )
        blocks = _started_blocks(minutes)
        amount = Decimal("0.00") if included else fee + blocks * rate
        waiting = f", waiting {minutes} min" if minutes else ""
        params = {  # no address: a stop's line outlives the traveller's personal data
            "number": number,
            "minutes": minutes,
            "blocks": blocks,
            "block_minutes": WAITING_BLOCK_MINUTES,
            "rate": str(rate),
            "fee": str(fee),
            "included": included,
        }
        lines.append(PriceLine(STOP, f"Stop {number}{waiting}", amount, params))
    return lines


def _ensure_room(snapshot: PricingSnapshot, tariff: TariffRates, request: PriceRequest) -> None:
    """The class seats the passengers and carries the luggage; the refusal names the classes that would."""
    for field_name, wanted, room in (
        ("passengers", request.passengers, tariff.passengers),
        ("luggage", request.luggage, tariff.luggage),
    ):
        if wanted is None or not room or wanted <= room:
            continue
        fitting = [
            code
            for code, item in snapshot.tariffs.items()
            if item.active
            and (request.passengers or 0) <= item.passengers
            and (request.luggage or 0) <= item.luggage
        ]
        said = (
            _("Vehicle class {code!r} seats {room} passengers, not {wanted}.")
            if field_name == "passengers"
            else _("Vehicle class {code!r} carries {room} pieces of luggage, not {wanted}.")
        )
        then = (
            format_lazy(_("Classes that fit: {classes}."), classes=", ".join(fitting))
            if fitting
            else _("No class fits: ask the operator for a quote (several cars or a larger vehicle).")
        )
        raise DomainError(
            format_lazy(
                "{said} {then}",
                said=format_lazy(said, code=tariff.vehicle_class, room=room, wanted=wanted),
                then=then,
            ),
            code="vehicle_too_small",
            field=field_name,
            extra={"fittingClasses": fitting},
        )


def booked_offers(quote: Quote) -> dict[str, ExtraOffer]:
    """The extras of a booked price as offers in its class, at the price and quantity they were booked at:
    pricing the ride again after staff withdrew one or lowered its maximum keeps them (moving a pickup must
    not fail on it), while another class takes only what it offers."""
    return {
        line.params["code"]: ExtraOffer(
            code=line.params["code"],
            name_en=line.params["name_en"],
            name_de=line.params["name_de"],
            price=Decimal(line.params["unit_price"]),
            per_piece=line.params.get("per_piece", True),
            maximum=0,
            maxima=MappingProxyType({quote.vehicle_class: int(line.params["quantity"])}),
            child_seat=line.params.get("child_seat", ""),
        )
        for line in quote.extra_lines
    }


def _extra_name(extra: ExtraOffer):
    """The extra's name in the active language, when it is read."""
    return lazy(lambda: extra.name_de if get_language() == "de" else extra.name_en, str)()


def _extra_lines(snapshot: PricingSnapshot, tariff: TariffRates, request: PriceRequest) -> list[PriceLine]:
    """A line per extra asked for, in the catalog's order, each checked against the class: offered in it, no
    more than its maximum, and no more child seats than passengers (or the class's seats)."""
    wanted: dict[str, int] = {}
    for choice in request.extras:
        wanted[choice.code] = wanted.get(choice.code, 0) + choice.quantity
    code_of_class = tariff.vehicle_class
    chosen = []
    for code in wanted:
        extra = snapshot.extras.get(code)
        kept = request.booked_extras.get(code)
        if extra is None or not extra.active:
            extra = kept
        if extra is None or not (extra.most_in(code_of_class) or (kept and kept.most_in(code_of_class))):
            offered = ", ".join(
                item.code for item in snapshot.extras.values() if item.active and item.most_in(code_of_class)
            )
            raise DomainError(
                format_lazy(
                    _(
                        "There is no extra {code!r} in vehicle class {vehicle_class!r}; extras offered: "
                        "{offered}."
                    ),
                    code=code,
                    vehicle_class=code_of_class,
                    offered=offered or "—",
                ),
                code="unknown_extra",
                field="extras",
            )
        chosen.append((extra, kept))
    catalog = list(snapshot.extras)
    chosen.sort(key=lambda pair: catalog.index(pair[0].code) if pair[0].code in catalog else len(catalog))
    lines, child_seats = [], 0
    for extra, kept in chosen:
        quantity = wanted[extra.code]
        most = extra.most_in(code_of_class)
        if kept is not None:  # what was booked stays booked
            most = max(most, kept.most_in(code_of_class))
        if quantity > most:
            raise DomainError(
                format_lazy(
                    _("At most {most} × {name} in vehicle class {vehicle_class!r}, not {quantity}."),
                    most=most,
                    name=_extra_name(extra),
                    vehicle_class=code_of_class,
                    quantity=quantity,
                ),
                code="too_many_extras",
                field="extras",
            )
        if extra.child_seat:
            child_seats += quantity
        params = {
            "code": extra.code,
            "name_en": extra.name_en,
            "name_de": extra.name_de,
            "quantity": quantity,
            "unit_price": str(extra.price),
            "per_piece": extra.per_piece,
            "child_seat": extra.child_seat,
        }
        label = f"{extra.name_en} × {quantity}" if extra.per_piece else extra.name_en
        lines.append(PriceLine(EXTRA, label, extra.price * quantity, params))
    seats = request.passengers or tariff.passengers
    if seats and child_seats > seats:
        raise DomainError(
            format_lazy(
                _("{count} child seats for {seats} passengers: each child seat is for a passenger."),
                count=child_seats,
                seats=seats,
            ),
            code="too_many_extras",
            field="extras",
        )
    return lines
