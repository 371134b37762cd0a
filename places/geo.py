"""Geography of docs/decisions.md §3: Zone A is everything within 25 km (great circle) of Stephansplatz."""

import math
from collections.abc import Iterable
from dataclasses import dataclass

EARTH_RADIUS_KM = 6371.0088  # mean radius (IUGG)
ZONE_A_RADIUS_KM = 25.0


@dataclass(frozen=True)
class LatLng:
    lat: float
    lng: float


VIENNA_CENTER = LatLng(48.20849, 16.37208)  # Stephansplatz


def great_circle_km(a: LatLng, b: LatLng) -> float:
    """Haversine distance."""
    lat1, lat2 = math.radians(a.lat), math.radians(b.lat)
    d_lat, d_lng = lat2 - lat1, math.radians(b.lng - a.lng)
    h = math.sin(d_lat / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin(d_lng / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def in_zone_a(point: LatLng) -> bool:
    return great_circle_km(VIENNA_CENTER, point) <= ZONE_A_RADIUS_KM


def touches_zone_a(points: Iterable[LatLng]) -> bool:
    """Whether any of these places (a ride's pickup and drop-off) lies in Zone A."""
    return any(in_zone_a(point) for point in points)
