"""Checkout (docs/decisions.md §9): the server checks the pickup, routes and prices the ride itself and
stores the booking; payments/checkout.py then asks the payment provider for a hosted checkout page. The
amount charged is always the server's own price."""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Protocol

from django.conf import settings
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import presentation, ride_stops
from booking.availability import check_availability
from booking.links import manage_url
from booking.models import Booking
from booking.ride_stops import Stop
from flights import services as flights
from places import airports
from places.geo import VIENNA_CENTER, great_circle_km
from places.services import RouteEstimate, estimate_route
from pricing import services as pricing
from pricing.money import from_cents, round_up, to_cents
from pricing.quote import HOURLY_BLOCK, BookingType, ExtraChoice, Quote
from sitekit import l10n, phones, references

MAX_NOTES_LENGTH = 1000  # characters of the customer's notes for the driver, on every door


@dataclass(frozen=True)
class BookingRequest:
    origin: str
    destination: str
    pickup: datetime | None = None
    vehicle_class: str = "executive"
    booking_type: str = BookingType.DISTANCE
    duration_hours: Decimal | None = None
    tour_name: str = ""
    name: str = ""
    email: str = ""
    phone: str = ""
    text_messages: bool = False  # the ride's messages by SMS as well (the booking page asks)
    locale: str = settings.LANGUAGE_CODE
    notes: str = ""
    flight_number: str = ""
    water_choice: str = ""
    flight_data: dict | None = None
    billing_address: str = ""  # the invoice's customer address (UStG §11: required above €400)
    billing_vat_id: str = ""  # the customer's UID (required above €10,000)
    passengers: int | None = None  # None: not said
    luggage: int | None = None
    extras: tuple[ExtraChoice, ...] = ()
    stops: tuple[Stop, ...] = ()  # on the way, in order
    way_back: "WayBack | None" = None  # a return trip's (booking/trips.py)
    submitted: dict = field(default_factory=dict)  # the booking data as received, kept for the record


@dataclass(frozen=True)
class WayBack:
    """A return trip's way back as asked: its own pickup and flight; its addresses the way out's reversed
    unless named; the class, the travellers, their luggage and extras the way out's."""

    pickup: datetime
    origin: str = ""  # "": the way out's destination
    destination: str = ""  # "": the way out's origin
    flight_number: str = ""
    stops: tuple[Stop, ...] = ()


class PaymentPage(Protocol):
    """The hosted checkout page a booking is paid on (payments opens it: payments/checkout.py)."""

    @property
    def session_id(self) -> str: ...

    @property
    def url(self) -> str: ...


@dataclass(frozen=True)
class CheckoutResult:
    booking: Booking
    session: PaymentPage | None  # None: booked on a company's account, no payment page

    @property
    def manage_url(self) -> str:
        return manage_url(self.booking.reference)


@dataclass(frozen=True)
class PricedRide:
    route: RouteEstimate
    tour_slug: str | None
    quote: Quote


def price_the_ride(ride: BookingRequest) -> PricedRide:
    """The server's route and price for a ride, once the service booked is checked to cover the route.
    An hourly hire or a tour may go "as directed" (no destination): it is routed from its pickup to
    itself, so the pickup is still found and placed (Zone A, the tour's area) and nothing is charged for
    a drive."""
    ensure_reachable(ride)
    ensure_flight(ride)
    tour_slug = tour_named(ride.tour_name)
    if not ride.destination.strip() and not (ride.booking_type == BookingType.HOURLY or tour_slug):
        raise DomainError(
            _("A transfer needs its destination; only an hourly hire or a tour may go as directed."),
            field="destination",
        )
    end = ride.destination if ride.destination.strip() else ride.origin
    route = estimate_route(
        origin=ride.origin,
        destination=end,
        pickup=ride.pickup,
        stops=ride_stops.endpoints(ride.stops),
        stopping=ride_stops.stopping(ride.stops),
    )
    ensure_route_fits(ride, route, tour_slug)
    return PricedRide(route, tour_slug, price_ride(ride, route, tour_slug))


def ensure_reachable(ride: BookingRequest) -> None:
    """The traveller's phone is a number a chauffeur can call, and texts go only to a number that may get
    them (sms/phones.py): refused before anything is stored, on every door that books."""
    if ride.phone.strip():
        phones.e164(ride.phone)
    if ride.text_messages:
        phones.ensure_textable(ride.phone)


def ensure_flight(ride: BookingRequest) -> None:
    """The flight an airport pickup meets is written as a flight number (or an aircraft's registration)
    and, when the flight-data provider can tell, lands there when the pickup may meet it
    (flights/services.py). Refused before anything is stored. On any other ride the number is the
    chauffeur's information, taken as written."""
    if not ride.flight_number.strip() or ride.pickup is None or not airports.is_airport(ride.origin):
        return
    refusal = flights.check(ride.flight_number, pickup=ride.pickup, airport=airports.code_of(ride.origin))
    if refusal is not None:
        raise DomainError(refusal.words, field="flight_number")


def ensure_bookable(pickup: datetime | None) -> None:
    if pickup is None:
        return
    availability = check_availability(pickup=pickup)
    if not availability.available:
        earliest = availability.earliest_pickup
        raise DomainError(
            f"This pickup cannot be booked ({availability.reason}); the earliest possible is "
            f"{earliest.isoformat(timespec='minutes')}.",
            shown=format_lazy(
                _("This pickup time cannot be booked; the earliest possible is {earliest}."),
                earliest=l10n.day_time(earliest),
            ),
            code="lead_time",
            field="pickup",
            extra={"earliestPickup": earliest.isoformat(timespec="seconds")},
        )


def tour_named(tour_name: str) -> str | None:
    """The slug of the tour a customer named (by slug or by name); None for a ride without a tour."""
    if not tour_name:
        return None
    tour_slug = pricing.tour_slug_for(tour_name)
    if tour_slug is None:
        raise DomainError(
            format_lazy(_("There is no tour {name!r}."), name=tour_name),
            code="unknown_tour",
            field="tour_name",
        )
    return tour_slug


def ensure_route_fits(ride: BookingRequest, route: RouteEstimate, tour_slug: str | None) -> None:
    """The booked service must cover the route: an hourly hire lasts at least the drive and the waits at its
    stops, a tour's hours its waits too, and a tour starts, stops and ends within its area."""
    stopping = ride_stops.stopping(ride.stops)
    needed = round_up(Decimal(route.duration_s + stopping.total_seconds()) / 3600, HOURLY_BLOCK)
    if ride.booking_type == BookingType.HOURLY and ride.duration_hours is not None:
        booked, field = ride.duration_hours, "duration_hours"
    elif tour_slug and stopping:
        booked, field = pricing.current_snapshot().tours[tour_slug].included_hours, "stops"
    else:
        booked = None
    if booked is not None and booked < needed:
        said = (
            _(
                "The drive and the waits at the stops take about {needed} hours; {booked} hours cannot "
                "cover them."
            )
            if stopping
            else _(
                "The drive alone takes about {needed} hours; an hourly hire of {booked} hours cannot "
                "cover it."
            )
        )
        raise DomainError(
            format_lazy(said, needed=f"{needed:f}", booked=f"{booked.normalize():f}"),  # the API's numbers
            shown=format_lazy(said, needed=presentation.number(needed), booked=presentation.number(booked)),
            code="hire_too_short",
            field=field,
            extra={"minimumHours": float(needed)},  # a JSON number, as the API writes hours
        )
    if tour_slug:
        tour = pricing.current_snapshot().tours[tour_slug]
        places = [
            ("origin", route.start),
            *(("stops", stop) for stop in route.stops),
            ("destination", route.end),
        ]
        for name, point in places:
            away = Decimal(great_circle_km(VIENNA_CENTER, point)).quantize(Decimal("0.1"))
            if away > tour.area_radius_km:
                which = {"origin": "pickup", "stops": "stop", "destination": "drop-off"}[name]
                raise DomainError(
                    f"The {tour.name_en} runs within {tour.area_radius_km} km of Vienna's centre; this "
                    f"{which} is {away} km away.",
                    shown=format_lazy(
                        {
                            "origin": _(
                                "The {tour} runs within {radius} km of Vienna's centre; this pickup is "
                                "{away} km away."
                            ),
                            "stops": _(
                                "The {tour} runs within {radius} km of Vienna's centre; this stop is "
                                "{away} km away."
                            ),
                            "destination": _(
                                "The {tour} runs within {radius} km of Vienna's centre; this drop-off is "
                                "{away} km away."
                            ),
                        }[name],
                        tour=presentation.tour_name(tour_slug),
                        radius=presentation.number(tour.area_radius_km),
                        away=presentation.number(away),
                    ),
                    code="outside_tour_area",
                    field=name,
                )


def price_ride(ride: BookingRequest, route: RouteEstimate, tour_slug: str | None) -> Quote:
    """The server's own price for the ride."""
    try:
        return pricing.quote_price(
            vehicle_class=ride.vehicle_class,
            distance_km=route.distance_km,
            booking_type=ride.booking_type,
            in_zone_a=route.in_zone_a,
            duration_hours=ride.duration_hours,
            tour_slug=tour_slug,
            passengers=ride.passengers,
            luggage=ride.luggage,
            extras=ride.extras,
            stop_waits=ride_stops.waits(ride.stops),
        )
    except DomainError as refusal:
        if refusal.field == "tour_slug":  # the customer named the tour, not its slug
            refusal.field = "tour_name"
        raise


def ensure_amount(amount_cents: int, *quotes: Quote) -> None:
    """The amount sent is the server's price: of the ride, or of a return trip's two rides together."""
    expected = sum(to_cents(quote.price) for quote in quotes)
    if amount_cents != expected:
        rides = "this ride" if len(quotes) == 1 else "these rides together"
        raise DomainError(
            f"The amount must be {expected} cents ({from_cents(expected)} {quotes[0].currency}) for "
            f"{rides}, not {amount_cents}.",
            code="amount_mismatch",
            field="amount_cents",
            extra={"expectedAmount": expected},
        )


def store_booking(
    ride: BookingRequest,
    priced: PricedRide,
    **origin,  # channel, api_token_id …: where the booking came from
) -> Booking:
    route, quote, tour_slug = priced.route, priced.quote, priced.tour_slug
    return references.stored_under_a_free_one(
        lambda reference: Booking.objects.create(
            reference=reference,
            origin=ride.origin,
            destination=ride.destination.strip(),
            pickup_at=ride.pickup,
            vehicle_class=ride.vehicle_class,
            booking_type=ride.booking_type,
            duration_hours=ride.duration_hours,
            tour_slug=tour_slug or "",
            passengers=ride.passengers,
            luggage=ride.luggage,
            stops=ride_stops.records(ride.stops),
            distance_km=route.distance_km,
            duration_s=route.duration_s,
            estimated_arrival=route.estimated_arrival if ride.destination.strip() else None,
            in_zone_a=route.in_zone_a,
            austria_share=austria_share(priced),
            quote_record=quote.as_record(),
            amount_cents=to_cents(quote.price),
            currency=quote.currency,
            name=ride.name,
            email=ride.email,
            phone=phones.e164(ride.phone) if ride.phone.strip() else "",
            text_messages=ride.text_messages,
            locale=ride.locale,
            notes=ride.notes,
            flight_number=ride.flight_number,
            water_choice=ride.water_choice,
            tour_name=ride.tour_name,
            flight_data=ride.flight_data,
            billing_address=ride.billing_address.strip(),
            billing_vat_id=ride.billing_vat_id,
            booking_data=ride.submitted,
            **origin,
        ),
        "CB-",
    )


def austria_share(priced: PricedRide) -> Decimal | None:
    """The share of the ride's route in Austria that its invoice shows, from the route already
    estimated (no provider call); a tour's is the one staff entered. None: all in Austria."""
    if priced.tour_slug:
        share = pricing.current_snapshot().tours[priced.tour_slug].austria_share
    else:
        share = priced.route.austria_share().share
    return None if share is None or share >= 1 else share


def new_reference() -> str:
    return references.drawn("CB-")
