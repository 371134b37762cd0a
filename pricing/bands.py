"""The rule that makes a tariff's distance bands valid: every distance has exactly one rate."""

from collections.abc import Sequence
from decimal import Decimal


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
