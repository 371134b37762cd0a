"""A route through stops on the way: the offline provider sums its legs, Google is asked for intermediates and
its legs read back, the cache keeps a route with stops apart from the one without, Zone A counts every place
the ride touches, and the arrival counts the time spent at the stops."""

import itertools
from datetime import timedelta
from decimal import Decimal

import pytest
import responses
from django.utils import timezone

from places import services
from places.geo import great_circle_km
from places.providers.base import MAX_STOPS, Endpoint
from places.providers.offline import OfflineProvider, estimate_road
from pricing.quote import MAX_STOPS as MOST_STOPS_PRICED
from tests.conftest import assert_problem
from tests.places.test_google import KEY, ROUTE_ANSWER, ROUTES, sent

pytestmark = pytest.mark.django_db

SACHER, AIRPORT = Endpoint("", "offline:hotel-sacher"), Endpoint("", "offline:vie-airport")
BRATISLAVA, ST_POELTEN = (
    Endpoint("", "offline:bratislava-hlavna-stanica"),
    Endpoint("", "offline:st-poelten-hbf"),
)


def test_the_offline_route_through_stops_is_the_sum_of_its_legs():
    provider = OfflineProvider()
    stops = (Endpoint("Stephansdom"), Endpoint("", "offline:schoenbrunn-palace"))
    route = provider.route(SACHER, AIRPORT, via=stops, departure=None)
    points = [provider._place(endpoint).location for endpoint in (SACHER, *stops, AIRPORT)]
    legs = [estimate_road(great_circle_km(a, b)) for a, b in itertools.pairwise(points)]
    assert route.distance_m == round(sum(km for km, _s in legs) * 1000)
    assert route.duration_s == round(sum(seconds for _km, seconds in legs))
    assert route.points == tuple(points)
    direct = provider.route(SACHER, AIRPORT, departure=None)
    assert route.distance_m > direct.distance_m and route.stops and not direct.stops


def test_zone_a_is_where_the_ride_starts_or_ends_not_where_it_stops():
    """The surcharge is for a car sent away from Vienna: a stop in the city on the way changes nothing."""
    far = services.estimate_route(
        origin="",
        origin_place_id=BRATISLAVA.place_id,
        destination="",
        destination_place_id=ST_POELTEN.place_id,
    )
    through_vienna = services.estimate_route(
        origin="",
        origin_place_id=BRATISLAVA.place_id,
        destination="",
        destination_place_id=ST_POELTEN.place_id,
        stops=[Endpoint("Hotel Sacher")],
    )
    assert (far.in_zone_a, through_vienna.in_zone_a) == (False, False)
    assert through_vienna.distance_km > far.distance_km
    from_vienna = services.estimate_route(
        origin="Hotel Sacher", destination="", destination_place_id=ST_POELTEN.place_id, stops=[BRATISLAVA]
    )
    assert from_vienna.in_zone_a is True


def test_the_arrival_counts_the_time_at_the_stops():
    pickup = (timezone.localtime() + timedelta(days=2)).replace(hour=10, minute=0, second=0, microsecond=0)
    moving = services.estimate_route(
        origin="Hotel Sacher", destination="Flughafen Wien", pickup=pickup, stops=[Endpoint("Stephansdom")]
    )
    standing = services.estimate_route(
        origin="Hotel Sacher",
        destination="Flughafen Wien",
        pickup=pickup,
        stops=[Endpoint("Stephansdom")],
        stopping=timedelta(minutes=25),
    )
    assert standing.estimated_arrival - moving.estimated_arrival == timedelta(minutes=25)
    assert standing.duration_s == moving.duration_s  # the driving time alone


def test_the_distance_endpoint_takes_stops_separated_by_a_bar(client):
    plain = client.get("/api/v1/distance", {"from": "Hotel Sacher", "to": "Flughafen Wien"}).json()
    response = client.get(
        "/api/v1/distance",
        {"from": "Hotel Sacher", "to": "Flughafen Wien", "stops": "Stephansdom|Schloss Schönbrunn"},
    )
    assert response.status_code == 200, response.content
    assert Decimal(str(response.json()["distance"])) > Decimal(str(plain["distance"]))
    unknown = client.get(
        "/api/v1/distance", {"from": "Hotel Sacher", "to": "Flughafen Wien", "stops": "Atlantis"}
    )
    assert "Atlantis" in assert_problem(unknown, 422, "route_not_found")["detail"]
    too_many = client.get(
        "/api/v1/distance",
        {
            "from": "Hotel Sacher",
            "to": "Flughafen Wien",
            "stops": "|".join(["Stephansdom"] * (MAX_STOPS + 1)),
        },
    )
    assert "stops" in assert_problem(too_many, 400, "invalid_request")["errors"]


def test_the_legacy_distance_endpoint_is_unchanged(client):
    plain = client.get("/api/calculate-distance", {"from": "Hotel Sacher", "to": "Flughafen Wien"}).json()
    ignored = client.get(
        "/api/calculate-distance", {"from": "Hotel Sacher", "to": "Flughafen Wien", "stops": "Stephansdom"}
    ).json()
    assert ignored["distance"] == plain["distance"]


def test_the_openapi_document_states_how_the_lists_go_in_a_query(client):
    document = client.get("/openapi.json").json()
    distance = {
        parameter["name"]: parameter
        for parameter in document["paths"]["/api/v1/distance"]["get"]["parameters"]
    }
    assert (distance["stops"]["style"], distance["stops"]["explode"]) == ("pipeDelimited", False)
    assert "x-pipe-delimited" not in distance["stops"]["schema"]
    price = {
        parameter["name"]: parameter for parameter in document["paths"]["/api/v1/price"]["get"]["parameters"]
    }
    assert (price["stopWaits"]["style"], price["stopWaits"]["explode"]) == ("form", False)
    legacy = document["paths"]["/api/calculate-distance"]["get"]["parameters"]
    assert "stops" not in {parameter["name"] for parameter in legacy}


def test_a_route_may_have_as_many_stops_as_a_tariff_may_allow():
    assert MAX_STOPS == MOST_STOPS_PRICED


# --- Google ---------------------------------------------------------------------------------------------

TWO_LEGS = {
    "routes": [
        {
            "distanceMeters": 23100,
            "duration": "1800s",
            "legs": [
                {
                    "startLocation": {"latLng": {"latitude": 48.2038, "longitude": 16.3695}},
                    "endLocation": {"latLng": {"latitude": 48.2085, "longitude": 16.3731}},
                },
                {
                    "startLocation": {"latLng": {"latitude": 48.2085, "longitude": 16.3731}},
                    "endLocation": {"latLng": {"latitude": 48.1202, "longitude": 16.5631}},
                },
            ],
        }
    ]
}


@pytest.fixture
def google(settings):
    settings.GOOGLE_MAPS_API_KEY = KEY
    settings.GOOGLE_ROUTES_URL = "https://routes.test"
    settings.GOOGLE_PLACES_URL = "https://places.test/"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def test_google_is_asked_for_the_stops_as_intermediates_and_its_legs_read_back(client, google):
    google.post(ROUTES, json=TWO_LEGS)
    estimate = services.estimate_route(
        origin="Hotel Sacher", destination="Flughafen Wien", stops=[Endpoint("Stephansdom", "ChIJ-dom")]
    )
    (call,) = google.calls
    assert sent(call)["intermediates"] == [{"placeId": "ChIJ-dom"}]
    assert (estimate.distance_km, estimate.duration_s) == (Decimal("23.1"), 1800)
    assert [(stop.lat, stop.lng) for stop in estimate.stops] == [(48.2085, 16.3731)]


def test_a_route_with_stops_is_cached_apart_from_the_one_without(client, google):
    google.post(ROUTES, json=ROUTE_ANSWER)
    google.post(ROUTES, json=TWO_LEGS)
    direct = services.estimate_route(origin="Hotel Sacher", destination="Flughafen Wien")
    through = services.estimate_route(
        origin="Hotel Sacher", destination="Flughafen Wien", stops=[Endpoint("Stephansdom")]
    )
    again = services.estimate_route(
        origin="Hotel Sacher", destination="Flughafen Wien", stops=[Endpoint("Stephansdom")]
    )
    assert len(google.calls) == 2  # the third from the cache
    assert "intermediates" not in sent(google.calls[0]) and "intermediates" in sent(google.calls[1])
    assert (direct.distance_km, through.distance_km, again.distance_km) == (
        Decimal("19.4"),
        Decimal("23.1"),
        Decimal("23.1"),
    )


def test_no_address_can_pass_for_a_route_with_stops_in_the_cache(client, google):
    google.post(ROUTES, json=ROUTE_ANSWER)
    google.post(ROUTES, json=TWO_LEGS)
    services.estimate_route(origin="Hotel Sacher\x1fStephansdom", destination="Flughafen Wien")
    through = services.estimate_route(
        origin="Hotel Sacher", destination="Flughafen Wien", stops=[Endpoint("Stephansdom")]
    )
    assert len(google.calls) == 2 and through.distance_km == Decimal("23.1")


def test_an_answer_with_legs_not_matching_the_stops_is_unreadable(client, google):
    google.post(ROUTES, json=ROUTE_ANSWER)  # one leg for a route with a stop
    response = client.get(
        "/api/v1/distance", {"from": "Hotel Sacher", "to": "Flughafen Wien", "stops": "Stephansdom"}
    )
    assert_problem(response, 503, "upstream_unavailable")
