"""The offline provider through its endpoints (the embedded default): places, aliases, districts, Zone A."""

import math

import pytest

from places.geo import VIENNA_CENTER, LatLng, great_circle_km, in_zone_a
from places.models import RatingReview, RatingSnapshot
from tests.admin_forms import change_form_data
from tests.conftest import assert_problem
from tests.processes import manage

pytestmark = pytest.mark.django_db

NULLS = {"distance": None, "estimatedArrival": None, "duration": None, "inZoneA": None}


def suggestions(client, text, **params) -> list[dict]:
    response = client.get("/api/v1/places", {"input": text, **params})
    assert response.status_code == 200, response.content
    return [item["placePrediction"] for item in response.json()["suggestions"]]


def first_id(client, text, **params) -> str:
    return suggestions(client, text, **params)[0]["placeId"]


@pytest.mark.parametrize(
    ("text", "place_id"),
    [
        ("VIE", "offline:vie-airport"),
        ("Vienna Airport", "offline:vie-airport"),
        ("Flughafen Wien", "offline:vie-airport"),
        ("flughafen", "offline:vie-airport"),  # prefix, most important first
        ("Pressburg", "offline:bratislava"),
        ("Prag", "offline:prague"),
        ("München", "offline:munich"),
        ("Munchen", "offline:munich"),
        ("GYOR", "offline:gyor"),
        ("győr", "offline:gyor"),
        ("SCHÖNBRUNN!!", "offline:schoenbrunn-palace"),
        ("schonbrunn", "offline:schoenbrunn-palace"),
        ("St. Pölten", "offline:st-poelten"),
        ("hotel sa", "offline:hotel-sacher"),
        ("Westbahnhof", "offline:wien-westbahnhof"),
        ("Stephansplatz", "offline:stephansdom"),
        ("Leopoldstadt", "offline:wien-1020-leopoldstadt"),
        ("1230", "offline:wien-1230-liesing"),
        ("Praterstraße 1, 1020 Wien", "offline:wien-1020-leopoldstadt"),
        ("Designer Outlet Parndorf", "offline:designer-outlet-parndorf"),
    ],
)
def test_known_places_and_aliases(client, text, place_id):
    assert first_id(client, text) == place_id


def test_suggestions_have_the_contract_shape_in_the_travellers_language(client):
    english = suggestions(client, "Flughafen Wien")
    assert english[0] == {
        "placeId": "offline:vie-airport",
        "text": {"text": "Vienna International Airport (VIE), Schwechat, Austria"},
        "types": ["airport", "point_of_interest", "establishment"],
    }
    german = suggestions(client, "Flughafen Wien", locale="de")
    assert german[0]["text"]["text"] == "Flughafen Wien-Schwechat (VIE), Schwechat, Österreich"
    assert len(suggestions(client, "wien")) == 5


def test_nothing_known_is_an_empty_list(client):
    assert suggestions(client, "xyzzy plugh") == []


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "input"),
        ({"input": " a "}, "input"),
        ({"input": "ab", "locale": "fr"}, "locale"),
        ({"input": "x" * 201}, "input"),
    ],
)
def test_invalid_autocomplete_input(client, params, field):
    assert_problem(client.get("/api/v1/places", params), 400, "invalid_request", field)
    legacy = client.get("/api/places-autocomplete", params)
    assert legacy.status_code == 400
    assert field in legacy.json()["error"]


def test_legacy_autocomplete_has_the_same_suggestions(client):
    assert (
        client.get("/api/places-autocomplete", {"input": "Sacher"}).json()
        == client.get("/api/v1/places", {"input": "Sacher"}).json()
    )


# --- routes -----------------------------------------------------------------------------------------


def test_distance_of_a_known_trip(client):
    params = {"from": "Hotel Sacher", "to": "Flughafen Wien", "pickupDatetime": "2026-12-01T10:00"}
    body = client.get("/api/v1/distance", params).json()
    assert set(body) == {"distance", "estimatedArrival", "duration", "inZoneA"}
    assert 18 < body["distance"] < 25
    assert 20 * 60 < body["duration"] < 30 * 60
    assert body["inZoneA"] is True
    assert body["estimatedArrival"].startswith("2026-12-01T10:2")
    assert body["estimatedArrival"].endswith("+01:00")
    assert client.get("/api/calculate-distance", params).json() == body


def test_place_ids_win_over_the_typed_text(client):
    by_text = client.get("/api/v1/distance", {"from": "Wien", "to": "Salzburg"}).json()
    by_id = client.get(
        "/api/v1/distance",
        {"from": "my hotel", "fromPlaceId": "offline:wien", "to": "?", "toPlaceId": "offline:salzburg"},
    ).json()
    assert by_id == {**by_text, "estimatedArrival": by_id["estimatedArrival"]}


def test_a_free_text_address_resolves_to_its_district(client):
    district = client.get("/api/v1/distance", {"from": "Praterstraße 1, 1020 Wien", "to": "Salzburg"}).json()
    by_id = client.get(
        "/api/v1/distance", {"from": "-", "fromPlaceId": "offline:wien-1020-leopoldstadt", "to": "Salzburg"}
    ).json()
    assert district["distance"] == by_id["distance"]


def point_at(km: float) -> LatLng:
    """A point `km` due east of Stephansplatz."""
    return LatLng(
        VIENNA_CENTER.lat,
        VIENNA_CENTER.lng + math.degrees(km / (6371.0088 * math.cos(math.radians(48.20849)))),
    )


def test_the_25_km_line():
    assert great_circle_km(VIENNA_CENTER, point_at(24.99)) == pytest.approx(24.99, abs=0.01)
    assert in_zone_a(point_at(24.99))
    assert in_zone_a(point_at(25.0))
    assert not in_zone_a(point_at(25.01))


@pytest.mark.parametrize(
    ("origin", "destination", "zone_a"),
    [
        ("Baden", "Eisenstadt", True),  # Baden is 24.8 km out: inside
        ("Tulln", "Eisenstadt", False),  # Tulln is 27.2 km out: outside
        ("Eisenstadt", "Hotel Sacher", True),  # only the drop-off is in Zone A
        ("Eisenstadt", "Sopron", False),
        ("Hotel Sacher", "Flughafen Wien", True),
    ],
)
def test_zone_a_is_the_pickup_or_the_drop_off_within_25_km(client, origin, destination, zone_a):
    assert client.get("/api/v1/distance", {"from": origin, "to": destination}).json()["inZoneA"] is zone_a


@pytest.mark.parametrize(
    ("text", "place_id"),
    [
        ("Budapest 1110", "offline:budapest"),  # a Hungarian postal code is no Vienna district
        ("Váci utca 1, 1050 Budapest", "offline:budapest"),
        ("Kärntner Straße 1, Wien", "offline:wien"),
        ("Herrengasse 1, Graz", "offline:graz"),
        ("Praterstraße 1, 1020 Wien", "offline:wien-1020-leopoldstadt"),
        ("Schönbrunner Schloßstraße 47, 1130 Wien", "offline:wien-1130-hietzing"),
        ("Wohnung in Ottakring", "offline:wien-1160-ottakring"),
        ("Hotel Sacher, Philharmoniker Str. 4, 1010 Wien", "offline:hotel-sacher"),
        ("Sacher Hotel", "offline:hotel-sacher"),
    ],
)
def test_a_free_text_address_resolves_to_the_place_it_names(client, text, place_id):
    by_text = client.get("/api/v1/distance", {"from": text, "to": "Salzburg"}).json()
    by_id = client.get("/api/v1/distance", {"from": "-", "fromPlaceId": place_id, "to": "Salzburg"}).json()
    assert (by_text["distance"], by_text["inZoneA"]) == (by_id["distance"], by_id["inZoneA"])


@pytest.mark.parametrize("vague", ["a", "Hotel", "Bahnhof", "Straße 1"])
def test_a_vague_text_is_not_guessed(client, vague):
    assert_problem(client.get("/api/v1/distance", {"from": vague, "to": "Salzburg"}), 422, "route_not_found")


@pytest.mark.parametrize(
    ("pickup", "arrival"),
    [
        # Hotel Sacher → Salzburg takes a little over 3 hours; the clocks change on the way.
        ("2026-03-29T01:30", "2026-03-29T05:"),  # 01:30 CET + 3 h of driving = after 05:00 CEST
        ("2026-10-25T01:30", "2026-10-25T03:"),  # 01:30 CEST + 3 h of driving = after 03:00 CET
    ],
)
def test_the_arrival_counts_real_driving_time_across_daylight_saving_changes(client, pickup, arrival):
    body = client.get(
        "/api/v1/distance", {"from": "Hotel Sacher", "to": "Salzburg", "pickupDatetime": pickup}
    ).json()
    assert 3 * 3600 < body["duration"] < 4 * 3600
    assert body["estimatedArrival"].startswith(arrival), body


def test_an_unknown_place_is_no_route(client):
    params = {"from": "Hotel Sacher", "to": "Atlantis"}
    body = assert_problem(client.get("/api/v1/distance", params), 422, "route_not_found")
    assert "Atlantis" in body["detail"]
    legacy = client.get("/api/calculate-distance", params)
    assert legacy.status_code == 200
    assert legacy.json() == {**NULLS, "error": body["detail"]}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"to": "Wien"}, "from"),
        ({"from": "Wien"}, "to"),
        ({"from": "", "to": "Wien"}, "from"),
        ({"from": "Wien", "to": "Baden", "pickupDatetime": "soon"}, "pickupDatetime"),
        ({"from": "Wien", "to": "x" * 501}, "to"),
    ],
)
def test_invalid_distance_input(client, params, field):
    assert_problem(client.get("/api/v1/distance", params), 400, "invalid_request", field)
    legacy = client.get("/api/calculate-distance", params)
    assert legacy.status_code == 400
    assert field in legacy.json()["error"]


# --- rating -----------------------------------------------------------------------------------------


def test_rating_is_empty_by_default(client):
    empty = {"rating": None, "userRatingCount": None, "reviews": []}
    assert client.get("/api/v1/rating").json() == empty
    assert client.get("/api/google-rating").json() == empty


def test_staff_keep_the_rating_snapshot_in_the_admin(
    admin_client, client, django_capture_on_commit_callbacks, django_assert_num_queries
):
    assert client.get("/api/v1/rating").json()["rating"] is None
    with django_assert_num_queries(0):  # kept by this process: a warm request reads no database
        assert client.get("/api/v1/rating").json()["rating"] is None
    page = admin_client.get("/admin/places/ratingsnapshot/add/")
    data = change_form_data(page)
    data.update(
        {
            "rating": "4.9",
            "user_rating_count": "312",
            "reviews-TOTAL_FORMS": "1",
            "reviews-0-author_name": "Anna K.",
            "reviews-0-rating": "5",
            "reviews-0-text": "Punctual and kind.",
            "reviews-0-relative_time_description": "2 weeks ago",
            "reviews-0-order": "0",
        }
    )
    with django_capture_on_commit_callbacks(execute=True):  # the save moves the snapshot's shared version
        assert admin_client.post("/admin/places/ratingsnapshot/add/", data).status_code == 302
    assert client.get("/api/v1/rating").json() == {
        "rating": 4.9,
        "userRatingCount": 312,
        "reviews": [
            {
                "authorName": "Anna K.",
                "rating": 5.0,
                "text": "Punctual and kind.",
                "relativeTimeDescription": "2 weeks ago",
            }
        ],
    }
    assert admin_client.get("/admin/places/ratingsnapshot/add/").status_code == 403  # one snapshot only


def test_a_rating_outside_one_to_five_cannot_be_saved(admin_client):
    data = change_form_data(admin_client.get("/admin/places/ratingsnapshot/add/"))
    data["rating"] = "5.5"
    response = admin_client.post("/admin/places/ratingsnapshot/add/", data)
    assert response.status_code == 200
    assert RatingSnapshot.objects.count() == 0
    assert RatingReview.objects.count() == 0


@pytest.mark.parametrize(
    "headers", [{}, {"HTTP_AUTHORIZATION": "Bearer cbt_" + "A" * 43}], ids=["anonymous", "token"]
)
def test_the_rating_is_never_a_500_even_without_a_database(headers):
    # In a fresh process: the suite's own test database cannot be taken away without losing it. An
    # agent's token cannot be checked then, and the rate limiter counts it by address instead.
    probe = (
        f"from django.test import Client; c = Client(**{headers!r}); "
        "print([(r.status_code, r.content.decode()) for r in (c.get('/api/v1/rating'), c.get('/api/google-rating'))])"
    )
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        probe,
        DJANGO_DEBUG="true",
        DJANGO_ALLOWED_HOSTS="testserver",
        DATABASE_URL="sqlite:////nonexistent-directory/db.sqlite3",
    )
    nothing = '{"rating":null,"userRatingCount":null,"reviews":[]}'
    assert result.stdout.strip().splitlines()[-1] == str([(200, nothing), (200, nothing)]), result.stderr
