"""Google Maps Platform: Routes API `computeRoutes`, Places API (New) autocomplete and Place Details.
The key travels in the X-Goog-Api-Key header only (never in a URL or a log line); every call has connect
and read timeouts and at most one retry, for timeouts and 5xx only; anything unexpected becomes a
PlacesError."""

import logging
from collections.abc import Sequence
from datetime import UTC, datetime

import requests
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from places.geo import VIENNA_CENTER, LatLng
from places.providers.base import (
    MAX_REVIEWS,
    MAX_SUGGESTIONS,
    NO_RATING,
    Endpoint,
    Rating,
    Review,
    Route,
    Suggestion,
    is_google_place_id,
    route_not_found,
    upstream_unavailable,
)

logger = logging.getLogger(__name__)

TIMEOUT = (3.05, 8.0)  # connect, read (seconds)
BIAS_RADIUS_M = 50_000.0  # the largest circle Places autocomplete accepts
# Ask only for what is used: each extra field can move a request into a costlier SKU. The overview polyline
# (the share of the route in Austria, places/border.py) is a basic field: it keeps the Essentials SKU
# (https://developers.google.com/maps/billing-and-pricing/sku-details/routes).
ROUTE_FIELDS = (
    "routes.distanceMeters,routes.duration,routes.legs.startLocation,routes.legs.endLocation,"
    "routes.polyline.encodedPolyline"
)
MAX_POLYLINE_POINTS = 20_000  # an overview polyline has a few hundred; beyond this the answer is nonsense
SUGGESTION_FIELDS = ",".join(
    f"suggestions.placePrediction.{field}" for field in ("placeId", "text.text", "types")
)
RATING_FIELDS = "rating,userRatingCount,reviews"
# Sanity bounds: an answer beyond them is treated as malformed, never passed on.
MAX_ROUTE_METRES, MAX_ROUTE_SECONDS, MAX_RATING_COUNT = 5_000_000, 1_000_000, 100_000_000
KEY_PROBLEMS = {
    "API_KEY_INVALID",
    "API_KEY_SERVICE_BLOCKED",
    "API_KEY_HTTP_REFERRER_BLOCKED",
    "API_KEY_IP_ADDRESS_BLOCKED",
}


class GoogleProvider:
    remote = True

    def __init__(
        self,
        *,
        api_key: str,
        routes_url: str,
        places_url: str,
        place_id: str = "",
        session: requests.Session | None = None,
    ):
        self.api_key = api_key
        self.routes_url = routes_url.rstrip("/")
        self.places_url = places_url.rstrip("/")
        self.place_id = place_id
        self.session = session or requests.Session()

    # --- operations ---------------------------------------------------------------------------------

    def route(
        self,
        origin: Endpoint,
        destination: Endpoint,
        *,
        via: Sequence[Endpoint] = (),
        departure: datetime | None,
    ) -> Route:
        body: dict = {
            "origin": _waypoint(origin),
            "destination": _waypoint(destination),
            "travelMode": "DRIVE",
            "units": "METRIC",
        }
        if via:  # stopovers: each ends a leg of the answer
            body["intermediates"] = [_waypoint(stop) for stop in via]
        if departure is not None and departure > datetime.now(UTC):
            # Traffic-aware routing is the costlier SKU: only when the client names a (future) pickup.
            body["routingPreference"] = "TRAFFIC_AWARE"
            body["departureTime"] = departure.astimezone(UTC).isoformat().replace("+00:00", "Z")
        else:
            body["routingPreference"] = "TRAFFIC_UNAWARE"
        data = self._call("POST", f"{self.routes_url}/directions/v2:computeRoutes", ROUTE_FIELDS, json=body)
        routes = data.get("routes") or []
        if not routes:
            raise route_not_found(
                format_lazy(
                    _("No driving route from {origin!r} to {destination!r}."),
                    origin=origin.text,
                    destination=destination.text,
                )
            )
        try:
            route, legs = routes[0], routes[0]["legs"]
            if len(legs) != len(via) + 1:
                raise ValueError(f"{len(legs)} legs for {len(via)} stops")
            return Route(
                # proto3 JSON leaves out zeros
                distance_m=round(_bounded(route.get("distanceMeters", 0), MAX_ROUTE_METRES)),
                duration_s=round(
                    _bounded(str(route.get("duration", "0s")).removesuffix("s"), MAX_ROUTE_SECONDS)
                ),
                start=_lat_lng(legs[0]["startLocation"]),
                end=_lat_lng(legs[-1]["endLocation"]),
                path=_polyline((route.get("polyline") or {}).get("encodedPolyline") or ""),
                stops=tuple(_lat_lng(leg["endLocation"]) for leg in legs[:-1]),
            )
        except (KeyError, IndexError, TypeError, ValueError, OverflowError) as exc:
            raise self._malformed("route", exc) from exc

    def suggest(self, text: str, *, locale: str, session_token: str | None) -> list[Suggestion]:
        body: dict = {
            "input": text,
            "languageCode": locale,
            "locationBias": {
                "circle": {
                    "center": {"latitude": VIENNA_CENTER.lat, "longitude": VIENNA_CENTER.lng},
                    "radius": BIAS_RADIUS_M,
                }
            },
        }
        if session_token:
            body["sessionToken"] = session_token  # one billing session from first key press to the pick
        data = self._call("POST", f"{self.places_url}/v1/places:autocomplete", SUGGESTION_FIELDS, json=body)
        try:
            predictions = [
                item["placePrediction"] for item in _list(data, "suggestions") if "placePrediction" in item
            ]
            return [
                Suggestion(
                    place_id=_text(prediction["placeId"]),
                    text=_text(prediction["text"]["text"]),
                    types=tuple(_text(kind) for kind in prediction.get("types") or []),
                )
                for prediction in predictions[:MAX_SUGGESTIONS]
            ]
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise self._malformed("suggestions", exc) from exc

    def rating(self) -> Rating:
        if not self.place_id:
            return NO_RATING
        data = self._call("GET", f"{self.places_url}/v1/places/{self.place_id}", RATING_FIELDS)
        try:
            reviews = tuple(
                Review(
                    author_name=_text((review.get("authorAttribution") or {}).get("displayName") or ""),
                    rating=_stars(review.get("rating")),
                    text=_text((review.get("text") or review.get("originalText") or {}).get("text") or ""),
                    relative_time_description=_text(review.get("relativePublishTimeDescription") or ""),
                )
                for review in _list(data, "reviews")[:MAX_REVIEWS]
            )
            count = data.get("userRatingCount")
            return Rating(
                rating=_stars(data.get("rating")),
                user_rating_count=None if count is None else round(_bounded(count, MAX_RATING_COUNT)),
                reviews=reviews,
            )
        except (TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise self._malformed("rating", exc) from exc

    # --- HTTP -------------------------------------------------------------------------------------------

    def _call(self, method: str, url: str, field_mask: str, *, json: dict | None = None) -> dict:
        headers = {"X-Goog-Api-Key": self.api_key, "X-Goog-FieldMask": field_mask}
        for attempt in (1, 2):
            try:
                response = self.session.request(method, url, json=json, headers=headers, timeout=TIMEOUT)
            except requests.Timeout as exc:
                if attempt == 1:
                    continue
                raise upstream_unavailable(_("Google Maps did not answer in time.")) from exc
            except requests.RequestException as exc:
                logger.warning("Google Maps unreachable: %s", type(exc).__name__)
                raise upstream_unavailable(_("Google Maps cannot be reached.")) from exc
            if response.status_code >= 500 and attempt == 1:
                continue
            break
        return self._json(response)

    def _json(self, response: requests.Response) -> dict:
        status = response.status_code
        if status == 429:
            raise upstream_unavailable(_("Google Maps quota is exhausted; try again later."))
        if status in (401, 403):
            logger.error("Google Maps refused the API key (HTTP %s): check the key and enabled APIs", status)
            raise upstream_unavailable(_("Google Maps refused the request."))
        if status == 400 and _reasons(response) & KEY_PROBLEMS:
            logger.error("Google Maps refused the API key (HTTP 400): check GOOGLE_MAPS_API_KEY")
            raise upstream_unavailable(_("Google Maps refused the request."))
        if status == 400 and "/directions/" in response.url:
            raise route_not_found(_("Google Maps cannot route between these places."))
        if status != 200:
            logger.warning("Google Maps answered HTTP %s", status)
            raise upstream_unavailable(format_lazy(_("Google Maps answered HTTP {status}."), status=status))
        try:
            data = response.json()
        except ValueError as exc:
            raise self._malformed("body", exc) from exc
        if not isinstance(data, dict):
            raise self._malformed("body", TypeError(type(data).__name__))
        return data

    def _malformed(self, what: str, exc: Exception):
        logger.warning("Google Maps sent a malformed %s: %s", what, type(exc).__name__)
        return upstream_unavailable(_("Google Maps sent an answer that cannot be read."))


def _waypoint(endpoint: Endpoint) -> dict:
    if is_google_place_id(endpoint.place_id):
        return {"placeId": endpoint.place_id}
    return {"address": endpoint.text}


def _lat_lng(location: dict) -> LatLng:
    lat_lng = location["latLng"]
    lat, lng = float(lat_lng["latitude"]), float(lat_lng["longitude"])
    if not (-90 <= lat <= 90 and -180 <= lng <= 180):
        raise ValueError(f"no place on Earth: {lat}, {lng}")
    return LatLng(lat, lng)


def _polyline(encoded: str) -> tuple[LatLng, ...]:
    """Google's encoded polyline format (five decimals; developers.google.com/maps/documentation/utilities/
    polylinealgorithm); empty when the answer has none."""
    points: list[LatLng] = []
    index, lat, lng = 0, 0, 0
    while index < len(encoded):
        deltas = []
        for _coordinate in (0, 1):
            result = shift = 0
            while True:
                byte = ord(encoded[index]) - 63  # an IndexError on a cut-off string: malformed
                index += 1
                result |= (byte & 0x1F) << shift
                shift += 5
                if byte < 0x20:
                    break
            deltas.append(~(result >> 1) if result & 1 else result >> 1)
        lat, lng = lat + deltas[0], lng + deltas[1]
        if not (-90e5 <= lat <= 90e5 and -180e5 <= lng <= 180e5) or len(points) >= MAX_POLYLINE_POINTS:
            raise ValueError("polyline off the Earth or too long")
        points.append(LatLng(lat / 1e5, lng / 1e5))
    return tuple(points)


def _bounded(value, maximum: float) -> float:
    """A finite number from 0 to `maximum`; anything else is a malformed answer."""
    number = float(value)
    if not 0 <= number <= maximum:  # also false for NaN
        raise ValueError(f"{number} outside 0..{maximum}")
    return number


def _list(data: dict, member: str) -> list:
    value = data.get(member) or []
    if not isinstance(value, list):
        raise TypeError(f"{member} is not a list")
    return value


def _stars(value) -> float | None:
    return None if value is None else _bounded(value, 5)


def _text(value) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def _reasons(response: requests.Response) -> set[str | None]:
    """The `reason`s of a Google error body (google.rpc.ErrorInfo), empty when there are none."""
    try:
        details = response.json()["error"]["details"]
        return {detail.get("reason") for detail in details if isinstance(detail, dict)}
    except (ValueError, KeyError, TypeError):
        return set()
