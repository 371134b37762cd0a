"""Places services: route estimates, suggestions and the rating snapshot, from the provider the settings
choose. Answers of a remote provider are kept in the shared cache (routes 24 h, suggestions 10 min,
rating 1 h, plus the last good rating for when Google fails); a route or suggestion the cache lacks costs a
call from the day's budget (places/budget.py), and once that is spent the offline provider answers."""

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from typing import TypeVar

from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from apikit.versions import KeptCopy, SharedVersion
from places import border, budget
from places.border import AustriaShare
from places.geo import LatLng, great_circle_km, touches_zone_a
from places.providers.base import (
    NO_RATING,
    Endpoint,
    PlacesError,
    PlacesProvider,
    Rating,
    Suggestion,
    is_google_place_id,
    upstream_unavailable,
)
from sitekit import tolerant_cache

logger = logging.getLogger(__name__)

ROUTE_TTL = 24 * 3600
SUGGESTION_TTL = 10 * 60
RATING_TTL = 3600
RATING_KEY, LAST_GOOD_RATING_KEY = "places:rating", "places:rating:last-good"
# After an outage answer, callers get upstream_unavailable at once for a while instead of each waiting
# for the timeouts again (a circuit breaker shared by all workers).
OUTAGE_KEY, OUTAGE_TTL = "places:upstream-down", 30
RATING_FALLBACK_TTL = 5 * 60
MIN_INPUT = 2
# The offline rating snapshot staff keep, kept per process like the tariffs (apikit/versions.py).
RATING_SNAPSHOT = SharedVersion("rating-snapshot")
_kept_rating = KeptCopy(RATING_SNAPSHOT, lambda: provider().rating())

T = TypeVar("T")


@dataclass(frozen=True)
class RouteEstimate:
    distance_km: Decimal  # to 0.1 km
    duration_s: int
    estimated_arrival: datetime
    in_zone_a: bool
    start: LatLng  # where the route begins and ends, as the provider resolved the addresses
    end: LatLng
    path: tuple[LatLng, ...] = ()  # the road's shape from start to end; straight lines where unknown
    stops: tuple[LatLng, ...] = ()  # where it stops on the way, in order

    def austria_share(self) -> AustriaShare:
        """How much of this route lies in Austria (places/border.py); computed from the estimate alone,
        no provider call."""
        return border.austria_share(
            self.path or (self.start, *self.stops, self.end), distance_km=self.distance_km
        )


def drive_without_provider(start: LatLng, end: LatLng) -> timedelta:
    """The driving time between two points by the offline road model (the straight line, its detour
    factor, city speed first): no provider call, for a point that moves every few seconds."""
    from places.providers.offline import estimate_road

    _road_km, seconds = estimate_road(great_circle_km(start, end))
    return timedelta(seconds=round(seconds))


def provider() -> PlacesProvider:
    return _provider(
        settings.GOOGLE_MAPS_API_KEY,
        settings.GOOGLE_ROUTES_URL,
        settings.GOOGLE_PLACES_URL,
        settings.GOOGLE_PLACE_ID,
    )


@cache
def _provider(api_key: str, routes_url: str, places_url: str, place_id: str) -> PlacesProvider:
    if api_key:
        from places.providers.google import GoogleProvider

        return GoogleProvider(
            api_key=api_key, routes_url=routes_url, places_url=places_url, place_id=place_id
        )
    return offline_provider()


@cache
def offline_provider() -> PlacesProvider:
    """The built-in provider: the default, and the answer once the day's budget of remote calls is spent."""
    from places.providers.offline import OfflineProvider

    return OfflineProvider()


def estimate_route(
    *,
    origin: str,
    destination: str,
    origin_place_id: str | None = None,
    destination_place_id: str | None = None,
    pickup: datetime | None = None,
    stops: Sequence[Endpoint] = (),
    stopping: timedelta = timedelta(),
) -> RouteEstimate:
    """Distance, duration, arrival and Zone A of a drive from origin through the stops, in order, to
    destination; `stopping` is the time spent at the stops, which the arrival counts. Zone A is where the
    ride starts or ends (the surcharge is for a car sent away from Vienna): a stop on the way does not
    count. Raises PlacesError (route_not_found or upstream_unavailable)."""
    places = provider()
    start, end = (
        Endpoint(origin.strip(), origin_place_id or None),
        Endpoint(destination.strip(), destination_place_id or None),
    )
    via = tuple(Endpoint(stop.text.strip(), stop.place_id or None) for stop in stops)
    departure_hour = (
        pickup.astimezone(timezone.get_default_timezone()).strftime("%Y-%m-%dT%H") if pickup else "now"
    )

    def compute():
        return places.route(start, end, via=via, departure=pickup)

    if places.remote:
        # A Google place id names the place exactly; the typed text would only split the cache.
        ends = [
            endpoint.place_id if is_google_place_id(endpoint.place_id) else endpoint.text
            for endpoint in (start, *via, end)
        ]
        route = _remote(
            budget.ROUTES,
            _key("route", *ends, departure_hour),
            ROUTE_TTL,
            compute,
            lambda: offline_provider().route(start, end, via=via, departure=pickup),
            breaker=True,
        )
    else:
        route = compute()
    begins = pickup or timezone.now()
    # Elapsed time is added in UTC: across a DST change, local wall-clock arithmetic is an hour off.
    arrival = begins.astimezone(UTC) + timedelta(seconds=route.duration_s) + stopping
    return RouteEstimate(
        distance_km=(Decimal(route.distance_m) / 1000).quantize(Decimal("0.1"), ROUND_HALF_UP),
        duration_s=route.duration_s,
        estimated_arrival=timezone.localtime(arrival).replace(microsecond=0),
        in_zone_a=touches_zone_a((route.start, route.end)),
        start=route.start,
        end=route.end,
        path=route.path,
        stops=route.stops,
    )


def suggest_places(*, text: str, locale: str = "en", session_token: str | None = None) -> list[Suggestion]:
    """At most five suggestions for what a traveller is typing."""
    text = text.strip()
    if len(text) < MIN_INPUT:
        raise DomainError(f"Type at least {MIN_INPUT} characters.", field="text")
    places = provider()
    if not places.remote:
        return places.suggest(text, locale=locale, session_token=session_token)
    return _remote(
        budget.SUGGESTIONS,
        _key("suggest", text, locale, session_token),
        SUGGESTION_TTL,
        lambda: places.suggest(text, locale=locale, session_token=session_token),
        lambda: offline_provider().suggest(text, locale=locale, session_token=session_token),
    )


def rating_snapshot() -> Rating:
    """The public rating; never fails: without a fresh answer it serves the last good one, else nothing."""
    places = provider()
    if not places.remote:
        try:
            return _kept_rating.get()
        except DatabaseError:  # the snapshot staff keep is out of reach: show none rather than fail
            logger.warning("Rating snapshot unavailable: the database does not answer", exc_info=True)
            return NO_RATING
    fresh = tolerant_cache.read(RATING_KEY, what="places")
    if fresh is not None:
        return fresh
    try:
        rating = places.rating()
    except PlacesError:
        fallback = tolerant_cache.read(LAST_GOOD_RATING_KEY, what="places") or NO_RATING
        # ask Google again in a few minutes, not per visit
        tolerant_cache.keep(RATING_KEY, fallback, RATING_FALLBACK_TTL, what="places")
        return fallback
    tolerant_cache.keep(RATING_KEY, rating, RATING_TTL, what="places")
    tolerant_cache.keep(LAST_GOOD_RATING_KEY, rating, None, what="places")
    return rating


def _remote(
    kind: str,
    key: str,
    ttl: int,
    call: Callable[[], T],
    offline: Callable[[], T],
    *,
    breaker: bool = False,
) -> T:
    """The cached answer; else, unless the provider was just found down (`breaker`), one upstream call
    from the day's budget, its answer cached. A spent budget gets the offline answer, not cached: the next
    day's budget asks the provider again."""
    found = tolerant_cache.read(key, what="places")
    if found is not None:
        return found
    if breaker and tolerant_cache.read(OUTAGE_KEY, what="places"):
        raise upstream_unavailable(_("The places provider is unavailable; try again in a minute."))
    if not budget.spend(kind):
        return offline()
    try:
        value = call()
    except PlacesError as failure:
        if breaker and failure.code == "upstream_unavailable":
            tolerant_cache.keep(OUTAGE_KEY, True, OUTAGE_TTL, what="places")  # an outage opens the breaker
        raise
    tolerant_cache.keep(key, value, ttl, what="places")
    return value


def _key(*parts: object) -> str:
    # Hashed: texts are user input of any length and character. As a JSON list, so that no text can
    # imitate two (a route's stops are parts of their own).
    digest = hashlib.sha256(
        json.dumps(["" if part is None else str(part) for part in parts]).encode()
    ).hexdigest()
    return f"places:{parts[0]}:{digest}"
