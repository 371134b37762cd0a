"""How much of a route lies in Austria (the invoice of a ride across the border names it). Austria's outline
is places/data/austria.geojson (Natural Earth, public domain; places/data/README.md); the route is the
provider's polyline, or the straight line between its ends. The route is cut into pieces of at most 500 m,
and each piece counts as Austrian when its middle lies in Austria: pure Python, no GEOS."""

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path

from places.geo import LatLng, great_circle_km

OUTLINE = Path(__file__).parent / "data" / "austria.geojson"
SAMPLE_KM = 0.5
BAND = 0.05  # degrees of latitude per bucket of border edges (a point is tested against its bucket only)
ON_BORDER = 1e-9  # degrees: a point this close to the outline lies on it, and counts as Austria
SHARE_PLACES = Decimal("0.001")


@dataclass(frozen=True)
class AustriaShare:
    share: Decimal  # 0–1, three places
    km_in_austria: Decimal  # of the route's distance, to 0.1 km
    km_total: Decimal


def austria_share(path: Sequence[LatLng], *, distance_km: Decimal) -> AustriaShare:
    """The share of a route in Austria; `distance_km` is the route's driven distance, which the share divides
    (a straight line or an overview polyline is shorter than the road)."""
    inside = total = 0.0
    for a, b in itertools.pairwise(path):
        length = great_circle_km(a, b)
        pieces = max(1, math.ceil(length / SAMPLE_KM))
        for k in range(pieces):
            t = (k + 0.5) / pieces  # pieces are short: interpolating degrees is exact enough
            if in_austria(LatLng(a.lat + (b.lat - a.lat) * t, a.lng + (b.lng - a.lng) * t)):
                inside += length / pieces
        total += length
    # A ride as directed goes from its pickup to itself: where that lies decides.
    fraction = inside / total if total else float(bool(path) and in_austria(path[0]))
    share = Decimal(fraction).quantize(SHARE_PLACES, ROUND_HALF_UP)
    return AustriaShare(
        share=share,
        km_in_austria=(distance_km * share).quantize(Decimal("0.1"), ROUND_HALF_UP),
        km_total=distance_km,
    )


def in_austria(point: LatLng) -> bool:
    """Inside Austria's outline, or on it (crossing number test, edges of the point's latitude band only)."""
    outline = _outline()
    x, y = point.lng, point.lat
    west, south, east, north = outline.bounds
    if not (west - ON_BORDER <= x <= east + ON_BORDER and south - ON_BORDER <= y <= north + ON_BORDER):
        return False
    crossings = 0
    for (x1, y1), (x2, y2) in outline.bands.get(math.floor(y / BAND), ()):
        if _on_edge(x, y, x1, y1, x2, y2):
            return True
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            crossings += 1
    return crossings % 2 == 1


def _on_edge(x, y, x1, y1, x2, y2) -> bool:
    if not (min(x1, x2) - ON_BORDER <= x <= max(x1, x2) + ON_BORDER):
        return False
    if not (min(y1, y2) - ON_BORDER <= y <= max(y1, y2) + ON_BORDER):
        return False
    length = math.hypot(x2 - x1, y2 - y1)
    return abs((x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)) <= ON_BORDER * max(length, ON_BORDER)


@dataclass(frozen=True)
class _Outline:
    bounds: tuple[float, float, float, float]
    bands: dict[int, tuple]


@cache
def _outline() -> _Outline:
    geometry = json.loads(OUTLINE.read_text(encoding="utf-8"))["geometry"]
    rings = [ring for polygon in geometry["coordinates"] for ring in polygon]
    bands: dict[int, list] = {}
    for ring in rings:
        for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1], strict=True):
            low, high = min(y1, y2) - ON_BORDER, max(y1, y2) + ON_BORDER
            for band in range(math.floor(low / BAND), math.floor(high / BAND) + 1):
                bands.setdefault(band, []).append(((x1, y1), (x2, y2)))
    xs = [x for ring in rings for x, _ in ring]
    ys = [y for ring in rings for _, y in ring]
    return _Outline(
        bounds=(min(xs), min(ys), max(xs), max(ys)),
        bands={band: tuple(edges) for band, edges in bands.items()},
    )
