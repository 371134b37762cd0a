"""Pricing services. Each process keeps one tariff snapshot, trusted while the shared tariff version holds
(apikit/versions.py), so a warm price request reads no database and a staff edit reaches every worker
on its next API request."""

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType

from apikit.versions import KeptCopy, SharedVersion
from pricing import models
from pricing.quote import (
    STOP,
    BookingType,
    ExtraChoice,
    PriceRequest,
    Quote,
    booked_offers,
    compute_quote,
    compute_waiting,
)
from pricing.snapshot import Band, ExtraOffer, PricingSnapshot, TariffRates, TourOffer

TARIFFS = SharedVersion("tariffs")
_snapshot = KeptCopy(TARIFFS, lambda: load_snapshot())


def quote_price(
    *,
    vehicle_class: str,
    distance_km: Decimal,
    booking_type: BookingType | str = BookingType.DISTANCE,  # a stored value is taken as its BookingType
    in_zone_a: bool = True,
    wait_minutes: int = 0,
    duration_hours: Decimal | None = None,
    tour_slug: str | None = None,
    passengers: int | None = None,
    luggage: int | None = None,
    extras: Iterable[ExtraChoice] = (),
    stop_waits: Iterable[int] = (),  # a stop on the way each: the minutes planned there
    booked: Quote | None = None,  # a booking's price being priced again: its extras withdrawn since are kept
) -> Quote:
    request = PriceRequest(
        vehicle_class=vehicle_class,
        distance_km=distance_km,
        booking_type=BookingType(booking_type),
        in_zone_a=in_zone_a,
        wait_minutes=wait_minutes,
        duration_hours=duration_hours,
        tour_slug=tour_slug or None,
        passengers=passengers,
        luggage=luggage,
        extras=tuple(extras),
        stop_waits=tuple(stop_waits),
        booked_extras=booked_offers(booked) if booked is not None else {},
        # the stops booked stay within their class's limit of then; another class takes what it allows
        booked_stops=sum(line.code == STOP for line in booked.lines)
        if booked is not None and booked.vehicle_class == vehicle_class
        else 0,
    )
    return compute_quote(current_snapshot(), request)


def waiting_price(*, vehicle_class: str, wait_minutes: int) -> Quote:
    """Waiting beyond what a ride's price included, at today's tariff (one `waiting` line)."""
    return compute_waiting(current_snapshot(), vehicle_class, wait_minutes)


@dataclass(frozen=True)
class VehicleOffer:
    code: str
    display_name: str
    passengers: int
    luggage: int


def offered_vehicle_classes() -> list[VehicleOffer]:
    """The classes travellers can book, in the admin's order, as the booking page shows them."""
    return [
        VehicleOffer(item.code, item.display_name, item.passengers, item.luggage)
        for item in models.VehicleClass.objects.filter(active=True)
    ]


@dataclass(frozen=True)
class ExtraListed:
    offer: ExtraOffer
    maxima: dict[str, int]  # how many a ride may have, by the code of each class offered that has it


def offered_extras() -> list[ExtraListed]:
    """The extras travellers can add, in the admin's order, each with its maximum in every class offered."""
    snapshot = current_snapshot()
    classes = [code for code, tariff in snapshot.tariffs.items() if tariff.active]
    listed = []
    for extra in snapshot.extras.values():
        maxima = {code: most for code in classes if (most := extra.most_in(code))}
        if extra.active and maxima:
            listed.append(ExtraListed(extra, maxima))
    return listed


def tour_slug_for(name: str) -> str | None:
    """The active tour a customer named by slug or by its German or English name."""
    wanted = name.strip().casefold()
    for tour in current_snapshot().tours.values():
        if tour.active and wanted in {tour.slug, tour.name_en.casefold(), tour.name_de.casefold()}:
            return tour.slug
    return None


def current_snapshot() -> PricingSnapshot:
    return _snapshot.get()


def load_snapshot() -> PricingSnapshot:
    tariffs = {
        tariff.vehicle_class.code: TariffRates(
            vehicle_class=tariff.vehicle_class.code,
            display_name=tariff.vehicle_class.display_name,
            active=tariff.vehicle_class.active,
            base_fare=tariff.base_fare,
            minimum_fare=tariff.minimum_fare,
            outside_zone_a_surcharge=tariff.outside_zone_a_surcharge,
            waiting_rate=tariff.waiting_rate,
            hourly_rate=tariff.hourly_rate,
            minimum_hours=tariff.minimum_hours,
            rounding_step=tariff.rounding_step,
            vat_rate=tariff.vat_rate,
            bands=tuple(Band(band.from_km, band.to_km, band.rate_per_km) for band in tariff.bands.all()),
            passengers=tariff.vehicle_class.passengers,
            luggage=tariff.vehicle_class.luggage,
            stop_fee=tariff.stop_fee,
            max_stops=tariff.max_stops,
        )
        for tariff in models.Tariff.objects.select_related("vehicle_class").prefetch_related("bands")
    }
    tours = {
        tour.slug: TourOffer(
            slug=tour.slug,
            name_en=tour.name_en,
            name_de=tour.name_de,
            included_hours=tour.included_hours,
            area_radius_km=tour.area_radius_km,
            active=tour.active,
            prices=MappingProxyType({price.vehicle_class.code: price.price for price in tour.prices.all()}),
            description_en=tour.description_en,
            description_de=tour.description_de,
            austria_share=tour.austria_share,
        )
        for tour in models.Tour.objects.prefetch_related("prices__vehicle_class")
    }
    extras = {
        extra.code: ExtraOffer(
            code=extra.code,
            name_en=extra.name_en,
            name_de=extra.name_de,
            price=extra.price,
            per_piece=extra.per_piece,
            maximum=extra.maximum,
            maxima=MappingProxyType(
                {limit.vehicle_class.code: limit.maximum for limit in extra.limits.all()}
            ),
            child_seat=extra.child_seat,
            vehicle_must_carry=extra.vehicle_must_carry,
            active=extra.active,
        )
        for extra in models.Extra.objects.prefetch_related("limits__vehicle_class")
    }
    return PricingSnapshot(
        tariffs=MappingProxyType(tariffs), tours=MappingProxyType(tours), extras=MappingProxyType(extras)
    )
