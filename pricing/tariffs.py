"""The immutable tariff snapshot the quote engine reads, and the rule that makes distance bands valid.
No Django here: the engine and its tests work on plain values."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Band:
    from_km: Decimal
    to_km: Decimal | None  # None: no upper end
    rate_per_km: Decimal


@dataclass(frozen=True)
class Tariff:
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


@dataclass(frozen=True)
class Tour:
    slug: str
    name_en: str
    name_de: str
    included_hours: Decimal
    active: bool
    prices: Mapping[str, Decimal]  # by vehicle class code


@dataclass(frozen=True)
class PricingSnapshot:
    tariffs: Mapping[str, Tariff]  # by vehicle class code
    tours: Mapping[str, Tour]  # by slug


def band_errors(bands: Sequence[tuple[Decimal, Decimal | None]]) -> list[str]:
    """Why a list of (from_km, to_km) bands cannot price every distance: they must start at 0, follow each
    other without gap or overlap, and only the last may (and must) be open-ended."""
    if not bands:
        return ["Add at least one distance band starting at 0 km."]
    errors = []
    ordered = sorted(bands, key=lambda band: band[0])
    if ordered[0][0] != 0:
        errors.append(f"The first band must start at 0 km, not {ordered[0][0]} km.")
    for index, (start, end) in enumerate(ordered):
        is_last = index == len(ordered) - 1
        if end is None:
            if not is_last:
                errors.append(f"Only the last band may be open-ended; the band from {start} km needs an end.")
            continue
        if end <= start:
            errors.append(f"The band from {start} km must end after it starts (it ends at {end} km).")
        if is_last:
            errors.append(f"The last band (from {start} km) must be open-ended so every distance has a rate.")
            continue
        next_start = ordered[index + 1][0]
        if next_start > end:
            errors.append(f"Gap between {end} km and {next_start} km: bands must be contiguous.")
        elif next_start < end:
            errors.append(f"Bands overlap between {next_start} km and {end} km.")
    return errors
