"""A ride's where, who and what as a change sets them: its addresses and stops routed again (distance,
driving time, Zone A, the share in Austria), its passengers, luggage and extras. Only a ride by distance is
routed again: an hourly hire's or a tour's route is agreed with its hours and area. Agents change only a
single ride at the tariff's price: staff change the addresses and stops of the others (a return trip's,
whose way back starts where the way out ends; one priced by hand or by staff's offer; one that meets a
flight), and the extras of a price agreed with staff. A paid ride whose share of the route in Austria (its
invoice's VAT split) would change is booked anew."""

import copy
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import ride_stops, trips
from booking.models import Booking
from booking.ride_stops import Stop
from places.services import estimate_route
from pricing.quote import BookingType, ExtraChoice, is_offered, price_by_hand_of


@dataclass(frozen=True)
class Ride:
    origin: str
    destination: str
    distance_km: Decimal | None
    duration_s: int | None
    in_zone_a: bool | None
    austria_share: Decimal | None
    passengers: int | None
    luggage: int | None
    stops: tuple[Stop, ...]
    extras: tuple[ExtraChoice, ...]  # as asked for: the price's lines say what they cost

    def as_record(self) -> dict:
        return {
            **asdict(self),
            "distance_km": None if self.distance_km is None else str(self.distance_km),
            "austria_share": None if self.austria_share is None else str(self.austria_share),
        }

    @classmethod
    def from_record(cls, record: dict) -> "Ride":
        decimal = {
            key: None if record[key] is None else Decimal(record[key])
            for key in ("distance_km", "austria_share")
        }
        listed = {
            "stops": tuple(Stop(**stop) for stop in record["stops"]),
            "extras": tuple(ExtraChoice(**extra) for extra in record["extras"]),
        }
        known = {name: value for name, value in record.items() if name in cls.__dataclass_fields__}
        return cls(**{**known, **decimal, **listed})  # a key a later version adds is not this one's to read


def as_booked(booking: Booking) -> Ride:
    return Ride(
        origin=booking.origin,
        destination=booking.destination,
        distance_km=booking.distance_km,
        duration_s=booking.duration_s,
        in_zone_a=booking.in_zone_a,
        austria_share=booking.austria_share,
        passengers=booking.passengers,
        luggage=booking.luggage,
        stops=ride_stops.of(booking),
        extras=booking.quote.extras,
    )


def wanted(
    booking: Booking,
    pickup: datetime,
    *,
    origin: str | None = None,
    destination: str | None = None,
    passengers: int | None = None,
    luggage: int | None = None,
    stops: tuple[Stop, ...] | None = None,
    extras: tuple[ExtraChoice, ...] | None = None,
    by_staff: bool = False,
) -> Ride:
    """The ride with what the change names (None: as booked; no stops or extras: `()`); new addresses or
    stops routed at the new pickup. Staff (`by_staff`) also change what they agreed otherwise: a return
    trip's ride, one priced by hand or by their offer, one that meets a flight."""
    ride = as_booked(booking)
    origin = _kept_unless_other(ride.origin, origin)
    destination = _kept_unless_other(ride.destination, destination)
    stops = ride.stops if stops is None else _kept_stops(ride.stops, stops)
    if (origin, destination, stops) != (ride.origin, ride.destination, ride.stops):
        ride = _rerouted(booking, ride, origin, destination, stops, pickup, by_staff=by_staff)
    changes_party = (passengers, luggage) != (None, None)
    if is_offered(booking.quote) and changes_party and not by_staff:
        _refuse(_("Staff's offer was made for this party: call the operator to change it."), "passengers")
    if extras is not None and _counted(extras) != _counted(ride.extras):
        # an offer's price is its lines (none for a new extra); a price set by hand is staff's to keep
        if is_offered(booking.quote) or (price_by_hand_of(booking.quote) is not None and not by_staff):
            _refuse(
                _("The offer the traveller accepted priced this ride's extras: make a new offer.")
                if by_staff
                else _("This ride's price was agreed with staff: call the operator to change its extras."),
                "extras",
            )
        ride = replace(
            ride, extras=tuple(ExtraChoice(code, count) for code, count in _counted(extras).items())
        )
    return replace(
        ride,
        passengers=ride.passengers if passengers is None else passengers,
        luggage=ride.luggage if luggage is None else luggage,
    )


def as_ride(booking: Booking, ride: Ride) -> Booking:
    """An unsaved copy of the booking with the ride's route, stops and party: what is computed from them (the
    chauffeur's and the car's time it takes) before it changes."""
    changed = copy.copy(booking)
    _set(changed, ride)
    return changed


def moved(booking: Booking, ride: Ride, pickup: datetime) -> Booking:
    """An unsaved copy of the booking as the change makes it: its route and party, its pickup and arrival."""
    changed = copy.copy(booking)
    apply(changed, ride, pickup)
    changed.pickup_at = pickup
    return changed


def apply(booking: Booking, ride: Ride, pickup: datetime) -> None:
    """The booking's fields as the ride says (the caller saves it); its arrival follows the new pickup."""
    _set(booking, ride)
    if booking.duration_s:
        stopping = ride_stops.stopping(ride.stops)
        booking.estimated_arrival = pickup + timedelta(seconds=booking.duration_s) + stopping


def _set(booking: Booking, ride: Ride) -> None:
    """The ride's fields on the booking; its extras are its price's (the caller sets the new quote)."""
    for name, value in asdict(ride).items():
        if name != "extras":
            setattr(booking, name, value)  # stops as their records: asdict writes them so


def _same_place(first: str, second: str) -> bool:
    """Two addresses as people type them: letter case and spaces do not count."""
    return " ".join(first.split()).casefold() == " ".join(second.split()).casefold()


def _kept_unless_other(booked: str, named: str | None) -> str:
    """The address named, or the booked one when none is named or it is the same but for case and spaces."""
    if named is None or _same_place(named, booked):
        return booked
    return named.strip()


def _kept_stops(booked: tuple[Stop, ...], named: tuple[Stop, ...]) -> tuple[Stop, ...]:
    """The stops named, each address kept as booked at its place where it is the same but for case and
    spaces."""
    return tuple(
        Stop(
            _kept_unless_other(booked[i].address, stop.address) if i < len(booked) else stop.address.strip(),
            stop.wait_minutes,
        )
        for i, stop in enumerate(named)
    )


def _counted(extras: tuple[ExtraChoice, ...]) -> dict[str, int]:
    """Extras as the price counts them: a code named twice is one extra with its pieces together."""
    counted: dict[str, int] = {}
    for extra in extras:
        counted[extra.code] = counted.get(extra.code, 0) + extra.quantity
    return counted


def _refuse(reason, field: str) -> None:
    raise DomainError(reason, code="not_changeable", field=field)


def _rerouted(
    booking: Booking,
    ride: Ride,
    origin: str,
    destination: str,
    stops: tuple[Stop, ...],
    pickup: datetime,
    *,
    by_staff: bool,
) -> Ride:
    field = (
        "origin" if origin != ride.origin else "destination" if destination != ride.destination else "stops"
    )
    if by_staff:
        _ensure_staff_may_reroute(booking, field)
    else:
        _ensure_agent_may_reroute(booking, ride, origin, field)
    if not origin or not destination:
        raise DomainError(
            _("A transfer needs its pickup address and its destination."),
            field="origin" if not origin else "destination",
        )
    if _same_place(origin, destination) and not stops:  # with stops, a round trip back to where it started
        raise DomainError(_("The pickup address and the destination must differ."), field="destination")
    if (origin, destination, [stop.address for stop in stops]) == (
        ride.origin,
        ride.destination,
        [stop.address for stop in ride.stops],
    ):  # only the waits at the stops change: the same road, the car stands longer
        return replace(ride, stops=stops)
    route = estimate_route(
        origin=origin,
        destination=destination,
        pickup=pickup,
        stops=ride_stops.endpoints(stops),
        stopping=ride_stops.stopping(stops),
    )
    whole = route.austria_share().share
    share = None if whole is None or whole >= 1 else whole
    if booking.money_received and share != booking.austria_share:
        _refuse(
            _(
                "The new route crosses the border differently from the one invoiced: cancel the booking and "
                "book the new route, so that its invoice splits the VAT anew."
            )
            if by_staff
            else _(
                "The new route crosses the border differently from the one invoiced: call the operator to "
                "change it."
            ),
            field,
        )
    return replace(
        ride,
        origin=origin,
        destination=destination,
        stops=stops,
        distance_km=route.distance_km,
        duration_s=route.duration_s,
        in_zone_a=route.in_zone_a,
        austria_share=share,
    )


def _ensure_staff_may_reroute(booking: Booking, field: str) -> None:
    if booking.booking_type != BookingType.DISTANCE or booking.tour_slug:
        _refuse(
            _(
                "An hourly hire's or a tour's route is agreed with its hours and area: cancel it and book "
                "the new route."
            ),
            field,
        )


def _ensure_agent_may_reroute(booking: Booking, ride: Ride, origin: str, field: str) -> None:
    if booking.booking_type != BookingType.DISTANCE or booking.tour_slug or is_offered(booking.quote):
        _refuse(
            _(
                "This ride's route was agreed with its hours, its tour or staff's offer: call the operator "
                "to change its addresses or stops."
            ),
            field,
        )
    if trips.other_leg(booking) is not None:
        _refuse(
            _("This ride is part of a return trip: call the operator to change its addresses or stops."),
            field,
        )
    if price_by_hand_of(booking.quote) is not None:
        _refuse(
            _("Staff set this ride's price by hand: call the operator to change its addresses or stops."),
            field,
        )
    if booking.flight_number and origin != ride.origin:
        _refuse(_("This ride meets a flight: call the operator to change its pickup address."), "origin")
