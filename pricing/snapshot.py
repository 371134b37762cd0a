"""The immutable tariff snapshot the quote engine reads: plain values, no Django, so the engine and its
tests need no database. Named apart from the models they are loaded from (Tariff, Tour)."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType

DEFAULT_MAX_STOPS = 5  # stops on the way a class allows unless staff set otherwise


@dataclass(frozen=True)
class Band:
    from_km: Decimal
    to_km: Decimal | None  # None: no upper end
    rate_per_km: Decimal


@dataclass(frozen=True)
class TariffRates:
    vehicle_class: str
    display_name: str
    active: bool
    base_fare: Decimal
    minimum_fare: Decimal
    outside_zone_a_surcharge: Decimal
    waiting_rate: Decimal  # per started 15 minutes
    hourly_rate: Decimal
    minimum_hours: Decimal
    rounding_step: Decimal
    vat_rate: Decimal
    bands: tuple[Band, ...]
    passengers: int = 0  # what the class seats and carries; 0: unchecked (a snapshot made by hand)
    luggage: int = 0
    stop_fee: Decimal = Decimal("0.00")  # per stop on the way, besides its wait
    max_stops: int = DEFAULT_MAX_STOPS


@dataclass(frozen=True)
class TourOffer:
    slug: str
    name_en: str
    name_de: str
    included_hours: Decimal
    area_radius_km: Decimal  # both ends of the ride lie within this distance of Vienna's centre
    active: bool
    prices: Mapping[str, Decimal]  # by vehicle class code
    description_en: str = ""  # what the booking form says of the tour
    description_de: str = ""
    austria_share: Decimal | None = None  # staff's share of a tour's route in Austria (0–1); None: all


@dataclass(frozen=True)
class ExtraOffer:
    code: str
    name_en: str
    name_de: str
    price: Decimal  # gross, per piece or per booking
    per_piece: bool
    maximum: int  # per ride, in a class without its own
    maxima: Mapping[str, int]  # a class's own maximum, by vehicle class code (0: not offered there)
    child_seat: str = ""  # its age group; "" for anything else
    vehicle_must_carry: bool = False
    active: bool = True

    def most_in(self, vehicle_class: str) -> int:
        """How many a ride in this class may have (one at most of what is priced per booking)."""
        most = self.maxima.get(vehicle_class, self.maximum)
        return most if self.per_piece else min(most, 1)


@dataclass(frozen=True)
class PricingSnapshot:
    tariffs: Mapping[str, TariffRates]  # by vehicle class code
    tours: Mapping[str, TourOffer]  # by slug
    extras: Mapping[str, ExtraOffer] = field(
        default_factory=lambda: MappingProxyType({})
    )  # in the admin's order
