"""One quote of a ride for the booking page: its route and the price in every vehicle class offered, in
one call (the page compared classes with one price request each; README "Rate limits")."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from apikit.errors import DomainError
from places import airports
from places.providers.base import Endpoint
from places.services import RouteEstimate, estimate_route
from pricing import services as pricing
from pricing.quote import BookingType, ExtraChoice, Quote

# Refusals that concern one class, not the ride: the page offers the classes that can take it.
CLASS_PROBLEMS = ("unknown_tour", "vehicle_too_small", "unknown_extra", "too_many_extras", "too_many_stops")


@dataclass(frozen=True)
class ClassQuote:
    vehicle_class: str
    quote: Quote | None
    problem: str | None  # the code of why this class cannot take the ride (a tour it does not run)


@dataclass(frozen=True)
class RideQuote:
    route: RouteEstimate
    classes: tuple[ClassQuote, ...]
    pickup_is_airport: bool  # the page then asks for the flight number (booking/ride.py: meets_a_flight)


def quote_ride(
    *,
    origin: str,
    destination: str,
    origin_place_id: str | None = None,
    destination_place_id: str | None = None,
    pickup: datetime | None = None,
    booking_type: BookingType = BookingType.DISTANCE,
    duration_hours: Decimal | None = None,
    tour_slug: str | None = None,
    passengers: int | None = None,
    luggage: int | None = None,
    extras: tuple[ExtraChoice, ...] = (),
    stops: tuple[Endpoint, ...] = (),
    stop_waits: tuple[int, ...] = (),  # the minutes at each stop; none given: no waits
) -> RideQuote:
    """The route (raises PlacesError like estimate_route) and each offered class's price. A class that
    cannot take this ride (a tour it does not run, too few seats or too little room, an extra it does not
    offer or not so many) is listed with the problem's code; any other refusal (an hourly hire without
    hours, a tour by the hour) concerns every class and is raised."""
    route = estimate_route(
        origin=origin,
        destination=destination,
        origin_place_id=origin_place_id,
        destination_place_id=destination_place_id,
        pickup=pickup,
        stops=stops,
        stopping=timedelta(minutes=sum(stop_waits)),
    )
    waits = stop_waits or (0,) * len(stops)
    classes = []
    for offer in pricing.offered_vehicle_classes():
        try:
            quote = pricing.quote_price(
                vehicle_class=offer.code,
                distance_km=route.distance_km,
                booking_type=booking_type,
                in_zone_a=route.in_zone_a,
                duration_hours=duration_hours,
                tour_slug=tour_slug,
                passengers=passengers,
                luggage=luggage,
                extras=extras,
                stop_waits=waits,
            )
        except DomainError as refusal:
            if refusal.code not in CLASS_PROBLEMS:
                raise
            classes.append(ClassQuote(offer.code, None, refusal.code))
        else:
            classes.append(ClassQuote(offer.code, quote, None))
    return RideQuote(route, tuple(classes), airports.is_airport(origin))
