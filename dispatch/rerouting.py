"""A ride's where and who as a change sets them: its addresses routed again (distance, driving time, Zone A,
the share in Austria) through its stops, its passengers and luggage. Only a single ride by distance, at the
tariff's price, is routed again here; staff change the addresses of the others: an hourly hire's or a
tour's (agreed with its hours and area), a return trip's (its way back starts where the way out ends), one
priced by hand or by staff's offer, one that meets a flight, and one paid for whose share of the route in
Austria would change (its invoice's VAT split)."""

import copy
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import ride_stops, trips
from booking.models import Booking
from places.services import estimate_route
from pricing.quote import BookingType, is_offered, price_by_hand_of


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
        return cls(**{**record, **decimal})


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
    )


def wanted(
    booking: Booking,
    pickup: datetime,
    *,
    origin: str | None = None,
    destination: str | None = None,
    passengers: int | None = None,
    luggage: int | None = None,
) -> Ride:
    """The ride with what the change names (None: as booked); new addresses routed at the new pickup."""
    ride = as_booked(booking)
    origin = _kept_unless_other(ride.origin, origin)
    destination = _kept_unless_other(ride.destination, destination)
    if (origin, destination) != (ride.origin, ride.destination):
        ride = _rerouted(booking, ride, origin, destination, pickup)
    if is_offered(booking.quote) and (passengers, luggage) != (None, None):
        _refuse(_("Staff's offer was made for this party: call the operator to change it."), "passengers")
    return replace(
        ride,
        passengers=ride.passengers if passengers is None else passengers,
        luggage=ride.luggage if luggage is None else luggage,
    )


def as_ride(booking: Booking, ride: Ride) -> Booking:
    """An unsaved copy of the booking with the ride's route and party: what is computed from them (the
    chauffeur's and the car's time it takes) before it changes."""
    changed = copy.copy(booking)
    _set(changed, ride)
    return changed


def apply(booking: Booking, ride: Ride, pickup: datetime) -> None:
    """The booking's fields as the ride says (the caller saves it); its arrival follows the new pickup."""
    _set(booking, ride)
    if booking.duration_s:
        stopping = ride_stops.stopping(ride_stops.of(booking))
        booking.estimated_arrival = pickup + timedelta(seconds=booking.duration_s) + stopping


def _set(booking: Booking, ride: Ride) -> None:
    for name, value in asdict(ride).items():
        setattr(booking, name, value)


def _same_place(first: str, second: str) -> bool:
    """Two addresses as people type them: letter case and spaces do not count."""
    return " ".join(first.split()).casefold() == " ".join(second.split()).casefold()


def _kept_unless_other(booked: str, named: str | None) -> str:
    """The address named, or the booked one when none is named or it is the same but for case and spaces."""
    if named is None or _same_place(named, booked):
        return booked
    return named.strip()


def _refuse(reason, field: str) -> None:
    raise DomainError(reason, code="not_changeable", field=field)


def _rerouted(booking: Booking, ride: Ride, origin: str, destination: str, pickup: datetime) -> Ride:
    field = "origin" if origin != ride.origin else "destination"
    if booking.booking_type != BookingType.DISTANCE or booking.tour_slug or is_offered(booking.quote):
        _refuse(
            _(
                "This ride's addresses were agreed with its hours, its tour or staff's offer: call the "
                "operator to change them."
            ),
            field,
        )
    if trips.other_leg(booking) is not None:
        _refuse(_("This ride is part of a return trip: call the operator to change its addresses."), field)
    if price_by_hand_of(booking.quote) is not None:
        _refuse(_("Staff set this ride's price by hand: call the operator to change its addresses."), field)
    if booking.flight_number and origin != ride.origin:
        _refuse(_("This ride meets a flight: call the operator to change its pickup address."), "origin")
    if not origin or not destination:
        raise DomainError(
            _("A transfer needs its pickup address and its destination."),
            field="origin" if not origin else "destination",
        )
    if _same_place(origin, destination):
        raise DomainError(_("The pickup address and the destination must differ."), field="destination")
    stops = ride_stops.of(booking)
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
                "The new route crosses the border differently from the one invoiced: call the operator to "
                "change it."
            ),
            field,
        )
    return replace(
        ride,
        origin=origin,
        destination=destination,
        distance_km=route.distance_km,
        duration_s=route.duration_s,
        in_zone_a=route.in_zone_a,
        austria_share=share,
    )
