"""The built-in provider (docs/decisions.md §3): the bundled gazetteer, road distance from the great-circle
distance, and a duration model that is slow near the ends of a trip and fast in between (motorway)."""

import itertools
from collections.abc import Sequence
from datetime import datetime

from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from places import gazetteer
from places.geo import great_circle_km
from places.models import RatingSnapshot
from places.providers.base import (
    MAX_REVIEWS,
    MAX_SUGGESTIONS,
    NO_RATING,
    Endpoint,
    Rating,
    Review,
    Route,
    Suggestion,
    route_not_found,
)

# Calibrated against 21 real road distances and driving times (tests/places/test_offline_routes.py holds
# them, their sources and the error band these constants achieve: about 8 % on average).
DETOUR_FACTOR = 1.20  # road km per great-circle km
URBAN_KM = 8.0  # the first kilometres of a trip run at city speed …
URBAN_KMH = 30.0
MOTORWAY_KMH = 100.0  # … the rest at motorway speed


def estimate_road(great_circle: float) -> tuple[float, float]:
    """Road km and driving seconds for a great-circle distance in km."""
    road_km = great_circle * DETOUR_FACTOR
    urban_km = min(road_km, URBAN_KM)
    hours = urban_km / URBAN_KMH + (road_km - urban_km) / MOTORWAY_KMH
    return road_km, hours * 3600


class OfflineProvider:
    remote = False

    def __init__(self, places: gazetteer.Gazetteer | None = None):
        self.places = places or gazetteer.load()

    def suggest(self, text: str, *, locale: str, session_token: str | None) -> list[Suggestion]:
        found = self.places.search(text, limit=MAX_SUGGESTIONS)
        if not found and (resolved := self.places.resolve(text)):
            found = [resolved]  # e.g. a typed street address with a Vienna postal code
        return [Suggestion(place.place_id, place.label(locale), place.types) for place in found]

    def route(
        self,
        origin: Endpoint,
        destination: Endpoint,
        *,
        via: Sequence[Endpoint] = (),
        departure: datetime | None,
    ) -> Route:
        """Each leg estimated on its own: a stop slows the car down and speeds it up again."""
        points = [self._place(endpoint).location for endpoint in (origin, *via, destination)]
        legs = [estimate_road(great_circle_km(a, b)) for a, b in itertools.pairwise(points)]
        return Route(
            distance_m=round(sum(road_km for road_km, _seconds in legs) * 1000),
            duration_s=round(sum(seconds for _road_km, seconds in legs)),
            start=points[0],
            end=points[-1],
            stops=tuple(points[1:-1]),
        )

    def rating(self) -> Rating:
        """The snapshot staff keep in the admin; none until they enter one."""
        snapshot = RatingSnapshot.objects.prefetch_related("reviews").first()
        if snapshot is None:
            return NO_RATING
        return Rating(
            rating=None if snapshot.rating is None else float(snapshot.rating),
            user_rating_count=snapshot.user_rating_count,
            reviews=tuple(
                Review(
                    author_name=review.author_name,
                    rating=None if review.rating is None else float(review.rating),
                    text=review.text,
                    relative_time_description=review.relative_time_description,
                )
                for review in snapshot.reviews.all()[:MAX_REVIEWS]
            ),
        )

    def _place(self, endpoint: Endpoint) -> gazetteer.Place:
        place = (self.places.get(endpoint.place_id) if endpoint.place_id else None) or self.places.resolve(
            endpoint.text
        )
        if place is None:
            raise route_not_found(
                format_lazy(
                    _("Unknown place: {place!r}. Pick an address from the suggestions."), place=endpoint.text
                )
            )
        return place
