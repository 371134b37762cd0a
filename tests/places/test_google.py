"""The Google provider, faked at the HTTP boundary: the exact requests, the mapping of real-shaped answers,
the shared cache, and every failure giving the documented legacy and v1 answers."""

import json
from datetime import datetime, timedelta

import pytest
import requests
import responses
from django.core.cache import cache
from django.utils import timezone

from places.services import LAST_GOOD_RATING_KEY, OUTAGE_KEY, RATING_KEY
from tests.conftest import assert_problem

pytestmark = pytest.mark.django_db

KEY = "AIza-test-key-never-in-urls"
ROUTES = "https://routes.test/directions/v2:computeRoutes"
AUTOCOMPLETE = "https://places.test/v1/places:autocomplete"
DETAILS = "https://places.test/v1/places/ChIJ-operator"
NULLS = {"distance": None, "estimatedArrival": None, "duration": None, "inZoneA": None}

# Shaped like the Routes API answer for Stephansplatz → Vienna airport (fields of the field mask only).
ROUTE_ANSWER = {
    "routes": [
        {
            "distanceMeters": 19412,
            "duration": "1260s",
            "legs": [
                {
                    "startLocation": {"latLng": {"latitude": 48.2084, "longitude": 16.3731}},
                    "endLocation": {"latLng": {"latitude": 48.1202, "longitude": 16.5631}},
                }
            ],
        }
    ]
}
# St. Pölten → Salzburg: neither end in Zone A.
FAR_ROUTE_ANSWER = {
    "routes": [
        {
            "distanceMeters": 298000,
            "duration": "10380s",
            "legs": [
                {
                    "startLocation": {"latLng": {"latitude": 48.2047, "longitude": 15.6256}},
                    "endLocation": {"latLng": {"latitude": 47.8095, "longitude": 13.0550}},
                }
            ],
        }
    ]
}


KEY_INVALID = {
    "error": {
        "code": 400,
        "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}],
    }
}


def odd_route(start=None, **fields) -> dict:
    route = json.loads(json.dumps(ROUTE_ANSWER))["routes"][0]
    route.update(fields)
    if start:
        route["legs"][0]["startLocation"] = start
    return {"routes": [route]}


@pytest.fixture(autouse=True)
def google(settings):
    settings.GOOGLE_MAPS_API_KEY = KEY
    settings.GOOGLE_ROUTES_URL = "https://routes.test"
    settings.GOOGLE_PLACES_URL = "https://places.test/"
    settings.GOOGLE_PLACE_ID = "ChIJ-operator"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def sent(call) -> dict:
    return json.loads(call.request.body)


# --- routes -----------------------------------------------------------------------------------------


def test_route_request_asks_only_for_what_is_used(client, google):
    google.post(ROUTES, json=ROUTE_ANSWER)
    response = client.get("/api/v1/distance", {"from": "Stephansplatz 1, Wien", "to": "Flughafen Wien"})
    assert response.status_code == 200
    (call,) = google.calls
    assert call.request.url == ROUTES
    assert call.request.headers["X-Goog-Api-Key"] == KEY
    assert call.request.headers["X-Goog-FieldMask"] == (
        "routes.distanceMeters,routes.duration,routes.legs.startLocation,routes.legs.endLocation,"
        "routes.polyline.encodedPolyline"  # a basic field: the Essentials SKU still (places/border.py)
    )
    assert sent(call) == {
        "origin": {"address": "Stephansplatz 1, Wien"},
        "destination": {"address": "Flughafen Wien"},
        "travelMode": "DRIVE",
        "units": "METRIC",
        "routingPreference": "TRAFFIC_UNAWARE",
    }


def test_place_ids_are_sent_when_the_client_has_them_and_a_pickup_asks_for_traffic(client, google):
    google.post(ROUTES, json=ROUTE_ANSWER)
    pickup = (timezone.localtime() + timedelta(days=1)).replace(microsecond=0)
    client.get(
        "/api/v1/distance",
        {
            "from": "Hotel Sacher",
            "fromPlaceId": "ChIJ-sacher",
            "to": "VIE",
            "toPlaceId": "offline:vie-airport",
            "pickupDatetime": pickup.isoformat(),
        },
    )
    body = sent(google.calls[0])
    assert body["origin"] == {"placeId": "ChIJ-sacher"}
    assert body["destination"] == {"address": "VIE"}  # an offline id means nothing to Google
    assert body["routingPreference"] == "TRAFFIC_AWARE"
    assert datetime.fromisoformat(body["departureTime"]) == pickup
    assert body["departureTime"].endswith("Z")


def test_a_real_shaped_answer_becomes_the_distance_result(client, google):
    google.post(ROUTES, json=ROUTE_ANSWER)
    params = {"from": "Stephansplatz", "to": "Flughafen Wien", "pickupDatetime": "2026-12-01T10:00:00+01:00"}
    assert client.get("/api/v1/distance", params).json() == {
        "distance": 19.4,
        "estimatedArrival": "2026-12-01T10:21:00+01:00",
        "duration": 1260,
        "inZoneA": True,
    }
    assert client.get("/api/calculate-distance", params).json() == {
        "distance": 19.4,
        "estimatedArrival": "2026-12-01T10:21:00+01:00",
        "duration": 1260,
        "inZoneA": True,
    }


def test_zone_a_comes_from_where_the_legs_start_and_end(client, google):
    google.post(ROUTES, json=FAR_ROUTE_ANSWER)
    body = client.get("/api/v1/distance", {"from": "St. Pölten", "to": "Salzburg"}).json()
    assert (body["distance"], body["duration"], body["inZoneA"]) == (298.0, 10380, False)


def test_a_repeated_quote_of_the_same_route_makes_no_second_upstream_call(client, google):
    google.post(ROUTES, json=ROUTE_ANSWER)
    params = {"from": "Stephansplatz", "to": "Flughafen Wien", "pickupDatetime": "2026-12-01T10:00:00+01:00"}
    first = client.get("/api/v1/distance", params).json()
    again = client.get(
        "/api/calculate-distance", {**params, "pickupDatetime": "2026-12-01T10:45:00+01:00"}
    ).json()
    assert len(google.calls) == 1  # same route, same departure hour
    assert again["distance"] == first["distance"]
    assert again["estimatedArrival"] == "2026-12-01T11:06:00+01:00"  # counted from this pickup
    client.get("/api/v1/distance", {**params, "pickupDatetime": "2026-12-01T11:00:00+01:00"})
    assert len(google.calls) == 2  # another hour, another traffic picture


def test_empty_routes_mean_no_route(client, google):
    google.post(ROUTES, json={})
    params = {"from": "Stephansplatz", "to": "Atlantis"}
    assert_problem(client.get("/api/v1/distance", params), 422, "route_not_found")
    legacy = client.get("/api/calculate-distance", params)
    assert legacy.status_code == 200
    assert legacy.json() == {**NULLS, "error": "No driving route from 'Stephansplatz' to 'Atlantis'."}


def test_google_refusing_to_route_means_no_route(client, google):
    google.post(ROUTES, status=400, json={"error": {"code": 400, "status": "INVALID_ARGUMENT"}})
    assert_problem(client.get("/api/v1/distance", {"from": "x y z", "to": "Wien"}), 422, "route_not_found")


def test_a_5xx_is_retried_once(client, google):
    google.post(ROUTES, status=503)
    google.post(ROUTES, json=ROUTE_ANSWER)
    assert client.get("/api/v1/distance", {"from": "Stephansplatz", "to": "VIE"}).json()["distance"] == 19.4
    assert len(google.calls) == 2


def test_a_timeout_is_retried_once(client, google):
    google.post(ROUTES, body=requests.ReadTimeout("read timed out"))
    google.post(ROUTES, json=ROUTE_ANSWER)
    assert client.get("/api/v1/distance", {"from": "Stephansplatz", "to": "VIE"}).status_code == 200
    assert len(google.calls) == 2


@pytest.mark.parametrize(
    ("answers", "calls"),
    [
        ([{"status": 500}, {"status": 502}], 2),
        ([{"body": requests.ReadTimeout()}, {"body": requests.ConnectTimeout()}], 2),
        ([{"body": requests.ConnectionError("refused")}], 1),
        ([{"status": 429, "json": {"error": {"status": "RESOURCE_EXHAUSTED"}}}], 1),
        ([{"status": 403, "json": {"error": {"status": "PERMISSION_DENIED"}}}], 1),
        ([{"body": "<html>gateway</html>", "status": 200}], 1),
        ([{"json": ["not", "an", "object"]}], 1),
        ([{"json": {"routes": [{"distanceMeters": 5, "duration": "7s"}]}}], 1),  # no legs
        ([{"json": {"routes": [{"distanceMeters": "far", "duration": "7s", "legs": []}]}}], 1),
        ([{"json": odd_route(distanceMeters=float("inf"))}], 1),
        ([{"json": odd_route(distanceMeters=-99999999999999)}], 1),
        ([{"json": odd_route(duration="infs")}], 1),
        ([{"json": odd_route(duration="1e15s")}], 1),
        ([{"json": odd_route(duration="NaNs")}], 1),
        ([{"json": odd_route(start={"latLng": {"latitude": 123.0, "longitude": 16.0}})}], 1),
        ([{"status": 400, "json": KEY_INVALID}], 1),
    ],
)
def test_upstream_failures_give_the_documented_answers(client, google, caplog, answers, calls):
    params = {"from": "Stephansplatz", "to": "VIE"}
    for answer in answers:
        google.post(ROUTES, **answer)
    body = assert_problem(client.get("/api/v1/distance", params), 503, "upstream_unavailable")
    assert len(google.calls) == calls
    cache.delete(OUTAGE_KEY)  # the same failure again, seen through the legacy endpoint
    for answer in answers:
        google.post(ROUTES, **answer)
    legacy = client.get("/api/calculate-distance", params)
    assert legacy.status_code == 200
    assert legacy.json() == {**NULLS, "error": body["detail"]}
    assert KEY not in json.dumps(body) + caplog.text
    assert all(KEY not in call.request.url for call in google.calls)


def test_an_outage_opens_the_breaker_for_every_worker_and_caches_no_route(client, google):
    google.post(ROUTES, status=503)
    google.post(ROUTES, status=503)
    params = {"from": "Stephansplatz", "to": "VIE"}
    assert_problem(client.get("/api/v1/distance", params), 503, "upstream_unavailable")
    assert len(google.calls) == 2
    assert_problem(
        client.get("/api/v1/distance", {"from": "Wien", "to": "Graz"}), 503, "upstream_unavailable"
    )
    assert client.get("/api/calculate-distance", params).json()["error"].startswith("The places provider is")
    assert len(google.calls) == 2  # nobody waits for Google's timeouts while the breaker is open
    cache.delete(OUTAGE_KEY)  # 30 seconds later
    google.post(ROUTES, json=ROUTE_ANSWER)
    assert client.get("/api/v1/distance", params).json()["distance"] == 19.4
    assert len(google.calls) == 3  # the failure had not been cached as an answer


def test_no_route_does_not_open_the_breaker(client, google):
    google.post(ROUTES, json={})
    google.post(ROUTES, json=ROUTE_ANSWER)
    assert_problem(client.get("/api/v1/distance", {"from": "Wien", "to": "Atlantis"}), 422, "route_not_found")
    assert client.get("/api/v1/distance", {"from": "Wien", "to": "VIE"}).status_code == 200


# --- suggestions ------------------------------------------------------------------------------------

AUTOCOMPLETE_ANSWER = {
    "suggestions": [
        {
            "placePrediction": {
                "placeId": "ChIJ-sacher",
                "text": {"text": "Hotel Sacher Wien, Philharmoniker Straße, Wien, Österreich"},
                "types": ["lodging", "point_of_interest", "establishment"],
            }
        },
        {"queryPrediction": {"text": {"text": "Sacher Torte"}}},
        {
            "placePrediction": {
                "placeId": "ChIJ-sacher-salzburg",
                "text": {"text": "Hotel Sacher Salzburg, Schwarzstraße, Salzburg, Österreich"},
                "types": ["lodging"],
            }
        },
    ]
}


def test_autocomplete_request_carries_session_language_and_vienna_bias(client, google):
    google.post(AUTOCOMPLETE, json=AUTOCOMPLETE_ANSWER)
    response = client.get("/api/v1/places", {"input": " Sacher ", "sessionToken": "s-123", "locale": "de"})
    assert response.status_code == 200
    (call,) = google.calls
    assert call.request.headers["X-Goog-Api-Key"] == KEY
    assert call.request.headers["X-Goog-FieldMask"] == (
        "suggestions.placePrediction.placeId,suggestions.placePrediction.text.text,suggestions.placePrediction.types"
    )
    assert sent(call) == {
        "input": "Sacher",
        "sessionToken": "s-123",
        "languageCode": "de",
        "locationBias": {
            "circle": {"center": {"latitude": 48.20849, "longitude": 16.37208}, "radius": 50000.0}
        },
    }
    assert response.json() == {
        "suggestions": [
            {
                "placePrediction": {
                    "placeId": "ChIJ-sacher",
                    "text": {"text": "Hotel Sacher Wien, Philharmoniker Straße, Wien, Österreich"},
                    "types": ["lodging", "point_of_interest", "establishment"],
                }
            },
            {
                "placePrediction": {
                    "placeId": "ChIJ-sacher-salzburg",
                    "text": {"text": "Hotel Sacher Salzburg, Schwarzstraße, Salzburg, Österreich"},
                    "types": ["lodging"],
                }
            },
        ]
    }


def test_suggestions_are_cached_per_input_locale_and_session(client, google):
    google.post(AUTOCOMPLETE, json=AUTOCOMPLETE_ANSWER)
    for _ in range(2):
        client.get("/api/places-autocomplete", {"input": "Sacher", "sessionToken": "s-1"})
    assert len(google.calls) == 1
    client.get("/api/places-autocomplete", {"input": "Sacher", "sessionToken": "s-2"})
    client.get("/api/places-autocomplete", {"input": "Sacher", "sessionToken": "s-1", "locale": "de"})
    assert len(google.calls) == 3


def test_short_input_is_refused_without_asking_google(client, google):
    assert client.get("/api/places-autocomplete", {"input": " a "}).status_code == 400
    assert_problem(client.get("/api/v1/places", {"input": "a"}), 400, "invalid_request", "input")
    assert len(google.calls) == 0


FAILURES = [
    ([{"status": 500}, {"status": 503}], 2),
    ([{"body": requests.ReadTimeout()}, {"body": requests.ReadTimeout()}], 2),
    ([{"body": "{not json", "status": 200}], 1),
    ([{"status": 429, "json": {"error": {"status": "RESOURCE_EXHAUSTED"}}}], 1),
    ([{"status": 403, "json": {"error": {"status": "PERMISSION_DENIED"}}}], 1),
    ([{"status": 400, "json": KEY_INVALID}], 1),
]


@pytest.mark.parametrize(
    ("answers", "calls"),
    [
        *FAILURES,
        ([{"json": {"suggestions": [{"placePrediction": {"placeId": None, "text": {"text": "x"}}}]}}], 1),
        ([{"json": {"suggestions": [{"placePrediction": {"placeId": "a", "text": None}}]}}], 1),
        ([{"json": {"suggestions": "many"}}], 1),
    ],
)
def test_autocomplete_failures_give_the_documented_answers(client, google, caplog, answers, calls):
    for answer in answers:
        google.post(AUTOCOMPLETE, **answer)
    body = assert_problem(client.get("/api/v1/places", {"input": "Sacher"}), 503, "upstream_unavailable")
    assert len(google.calls) == calls
    cache.delete(OUTAGE_KEY)
    for answer in answers:
        google.post(AUTOCOMPLETE, **answer)
    legacy = client.get("/api/places-autocomplete", {"input": "Sacher"})
    assert legacy.status_code == 200
    assert legacy.json() == {"suggestions": [], "error": body["detail"]}
    assert KEY not in caplog.text


# --- rating -----------------------------------------------------------------------------------------

DETAILS_ANSWER = {
    "rating": 4.8,
    "userRatingCount": 231,
    "reviews": [
        {
            "name": f"places/ChIJ-operator/reviews/{index}",
            "relativePublishTimeDescription": f"{index + 1} weeks ago",
            "rating": 5,
            "text": {"text": f"Great driver {index}", "languageCode": "en"},
            "originalText": {"text": f"Great driver {index}", "languageCode": "en"},
            "authorAttribution": {
                "displayName": f"Guest {index}",
                "uri": "https://maps.test",
                "photoUri": "x",
            },
            "publishTime": "2026-11-01T10:00:00Z",
        }
        for index in range(6)
    ],
}


def test_rating_comes_from_place_details_of_the_operator(client, google):
    google.get(DETAILS, json=DETAILS_ANSWER)
    body = client.get("/api/v1/rating").json()
    (call,) = google.calls
    assert call.request.url == DETAILS
    assert call.request.headers["X-Goog-FieldMask"] == "rating,userRatingCount,reviews"
    assert (body["rating"], body["userRatingCount"], len(body["reviews"])) == (4.8, 231, 5)
    assert body["reviews"][0] == {
        "authorName": "Guest 0",
        "rating": 5.0,
        "text": "Great driver 0",
        "relativeTimeDescription": "1 weeks ago",
    }
    assert client.get("/api/google-rating").json() == body
    assert len(google.calls) == 1  # cached for an hour


def test_rating_failure_serves_the_last_good_rating(client, google):
    google.get(DETAILS, json=DETAILS_ANSWER)
    google.get(DETAILS, status=503)
    google.get(DETAILS, status=503)
    good = client.get("/api/v1/rating").json()
    cache.delete(RATING_KEY)  # the hour is over
    assert client.get("/api/v1/rating").json() == good
    assert cache.get(LAST_GOOD_RATING_KEY) is not None


@pytest.mark.parametrize(
    ("answers", "calls"),
    [
        *FAILURES,
        ([{"json": {"rating": float("inf")}}], 1),
        ([{"json": {"rating": 7}}], 1),
        ([{"json": {"rating": 4.5, "userRatingCount": 1e400}}], 1),
        ([{"json": {"rating": 4.5, "reviews": "many"}}], 1),
    ],
)
def test_rating_failure_with_nothing_cached_is_empty_not_an_error(client, google, caplog, answers, calls):
    for answer in answers:
        google.get(DETAILS, **answer)
    for path in ("/api/v1/rating", "/api/google-rating"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.json() == {"rating": None, "userRatingCount": None, "reviews": []}
    assert len(google.calls) == calls  # the empty answer is kept for a few minutes: no call per visit
    assert KEY not in caplog.text


def test_a_rating_only_review_has_empty_text(client, google):
    google.get(
        DETAILS, json={"rating": 5, "userRatingCount": 1, "reviews": [{"rating": 5, "authorAttribution": {}}]}
    )
    assert client.get("/api/v1/rating").json()["reviews"] == [
        {"authorName": "", "rating": 5.0, "text": "", "relativeTimeDescription": ""}
    ]


def test_a_refused_key_is_logged_as_an_operator_problem(client, google, caplog):
    google.post(ROUTES, status=400, json=KEY_INVALID)
    assert_problem(
        client.get("/api/v1/distance", {"from": "Wien", "to": "Graz"}), 503, "upstream_unavailable"
    )
    assert "GOOGLE_MAPS_API_KEY" in caplog.text


def test_without_a_place_id_there_is_no_rating_to_fetch(client, google, settings):
    settings.GOOGLE_PLACE_ID = ""
    assert client.get("/api/v1/rating").json() == {"rating": None, "userRatingCount": None, "reviews": []}
    assert len(google.calls) == 0
