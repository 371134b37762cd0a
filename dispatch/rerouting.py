"""A ride's where and who as a change sets them: its addresses routed again (distance, driving time, Zone A,
the share in Austria) through its stops, its passengers and luggage. Only a ride by distance is routed
again here: an hourly hire's or a tour's hours and area were agreed for its addresses (staff change those)."""

from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import ride_stops
from booking.models import Booking
from places.services import estimate_route
from pricing.quote import BookingType, is_offered


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
    origin = ride.origin if origin is None else origin.strip()
    destination = ride.destination if destination is None else destination.strip()
    if (origin, destination) != (ride.origin, ride.destination):
        ride = _rerouted(booking, ride, origin, destination, pickup)
    return replace(
        ride,
        passengers=ride.passengers if passengers is None else passengers,
        luggage=ride.luggage if luggage is None else luggage,
    )


def apply(booking: Booking, ride: Ride, pickup: datetime) -> None:
    """The booking's fields as the ride says (the caller saves it); its arrival follows the new pickup."""
    for name, value in asdict(ride).items():
        setattr(booking, name, value)
    if booking.duration_s:
        stopping = ride_stops.stopping(ride_stops.of(booking))
        booking.estimated_arrival = pickup + timedelta(seconds=booking.duration_s) + stopping


def _rerouted(booking: Booking, ride: Ride, origin: str, destination: str, pickup: datetime) -> Ride:
    if booking.booking_type != BookingType.DISTANCE or booking.tour_slug or is_offered(booking.quote):
        raise DomainError(
            _(
                "This ride's addresses were agreed with its hours, its tour or staff's offer: call the "
                "operator to change them."
            ),
            code="not_changeable",
            field="origin" if origin != ride.origin else "destination",
        )
    if not origin or not destination:
        raise DomainError(
            _("A transfer needs its pickup address and its destination."),
            field="origin" if not origin else "destination",
        )
    stops = ride_stops.of(booking)
    route = estimate_route(
        origin=origin,
        destination=destination,
        pickup=pickup,
        stops=ride_stops.endpoints(stops),
        stopping=ride_stops.stopping(stops),
    )
    share = route.austria_share().share
    return replace(
        ride,
        origin=origin,
        destination=destination,
        distance_km=route.distance_km,
        duration_s=route.duration_s,
        in_zone_a=route.in_zone_a,
        austria_share=None if share is None or share >= 1 else share,
    )
