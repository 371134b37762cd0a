"""The one interface every places provider implements. The rest of the code depends on this module only."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from apikit.errors import DomainError
from places.geo import LatLng

MAX_SUGGESTIONS, MAX_REVIEWS = 5, 5  # docs/decisions.md §3 and section 2.7 of the interface document
# Stops on the way a route may have: Google Routes takes 25 intermediates, 11 or more at a higher price.
MAX_STOPS = 10
OFFLINE_ID_PREFIX = "offline:"  # place ids of the built-in gazetteer; they mean nothing to Google


def is_google_place_id(place_id: str | None) -> bool:
    return bool(place_id and not place_id.startswith(OFFLINE_ID_PREFIX))


class PlacesError(DomainError):
    """A provider failure with a stable code: `route_not_found` (no such place or no route) or
    `upstream_unavailable` (the provider is down, slow, over quota or answered nonsense)."""


def route_not_found(detail) -> PlacesError:
    return PlacesError(detail, code="route_not_found")


def upstream_unavailable(detail) -> PlacesError:
    return PlacesError(detail, code="upstream_unavailable")


@dataclass(frozen=True)
class Endpoint:
    """One end of a route: what the client typed, and the place id it picked, if any."""

    text: str
    place_id: str | None = None


@dataclass(frozen=True)
class Route:
    distance_m: int
    duration_s: int
    start: LatLng
    end: LatLng
    # The road's shape where the provider gives one (Google's overview polyline); empty: unknown, and the
    # straight lines from start through the stops to the end stand in for it (places/border.py).
    path: tuple[LatLng, ...] = ()
    stops: tuple[LatLng, ...] = ()  # where the route stops on the way, in order

    @property
    def points(self) -> tuple[LatLng, ...]:
        return (self.start, *self.stops, self.end)


@dataclass(frozen=True)
class Suggestion:
    place_id: str
    text: str
    types: tuple[str, ...]


@dataclass(frozen=True)
class Review:
    author_name: str
    rating: float | None
    text: str
    relative_time_description: str


@dataclass(frozen=True)
class Rating:
    rating: float | None
    user_rating_count: int | None
    reviews: tuple[Review, ...]


NO_RATING = Rating(rating=None, user_rating_count=None, reviews=())


class PlacesProvider(Protocol):
    # Whether answers cost an upstream call (and so are worth caching in the shared cache).
    remote: bool

    def suggest(self, text: str, *, locale: str, session_token: str | None) -> list[Suggestion]: ...

    def route(
        self,
        origin: Endpoint,
        destination: Endpoint,
        *,
        via: Sequence[Endpoint] = (),
        departure: datetime | None,
    ) -> Route:
        """The drive from origin through each of `via` (stopping there, in order) to destination."""
        ...

    def rating(self) -> Rating: ...
