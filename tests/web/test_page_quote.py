"""GET /api/page/quote: the booking page's route and every class's price in one call, equal to what
/api/v1/distance and one /api/v1/price per class answer."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.conftest import assert_problem

pytestmark = pytest.mark.django_db

# A fixed pickup: without one the arrival is counted from "now", which moves between two calls.
PICKUP = (timezone.localtime() + timedelta(days=3)).replace(hour=10, minute=0, second=0, microsecond=0)
RIDE = {"from": "Hotel Sacher Wien", "to": "Flughafen Wien", "pickupDatetime": PICKUP.isoformat()}


def separately(client, **kind) -> tuple[dict, dict]:
    route = client.get("/api/v1/distance", RIDE).json()
    prices = {}
    for code in ("executive", "first", "business-van"):
        query = {"vehicleClass": code, "distanceKm": route["distance"], "inZoneA": route["inZoneA"], **kind}
        prices[code] = client.get("/api/v1/price", query).json()
    return route, prices


@pytest.mark.parametrize(
    "kind",
    [{}, {"bookingType": "hourly", "durationHours": "3.5"}, {"tourSlug": "vienna-city-tour"}],
)
def test_one_call_answers_the_route_and_every_class(client, kind):
    response = client.get("/api/page/quote", {**RIDE, **kind})
    assert response.status_code == 200, response.content
    body = response.json()
    route, prices = separately(client, **kind)
    assert body["route"] == route
    assert [item["vehicleClass"] for item in body["classes"]] == ["executive", "first", "business-van"]
    assert {item["vehicleClass"]: item["price"] for item in body["classes"]} == prices
    assert all(item["problem"] is None for item in body["classes"])
    assert response["RateLimit-Policy"] == '"default";q=60;w=60'  # counted once, like any API call


def test_the_executive_transfer_to_the_airport(client):
    body = client.get("/api/page/quote", RIDE).json()
    assert body["route"]["distance"] == 21.8
    assert body["classes"][0]["price"]["priceEur"] == 74.0


def test_the_page_learns_whether_the_pickup_is_an_airport(client):
    to_the_airport = client.get("/api/page/quote", RIDE).json()
    from_the_airport = client.get("/api/page/quote", {**RIDE, "from": RIDE["to"], "to": RIDE["from"]}).json()
    assert (to_the_airport["pickupIsAirport"], from_the_airport["pickupIsAirport"]) == (False, True)


def test_a_tour_no_class_runs_is_a_problem_per_class(client):
    body = client.get("/api/page/quote", {**RIDE, "tourSlug": "no-such-tour"}).json()
    assert [(item["price"], item["problem"]) for item in body["classes"]] == [(None, "unknown_tour")] * 3


def test_an_unknown_place_is_422_route_not_found(client):
    assert_problem(client.get("/api/page/quote", {"from": "Wien", "to": "Atlantis"}), 422, "route_not_found")


def test_an_hourly_hire_without_hours_is_refused_for_every_class(client):
    body = assert_problem(
        client.get("/api/page/quote", {**RIDE, "bookingType": "hourly"}), 400, "invalid_request"
    )
    assert "durationHours" in body["errors"]


def test_a_missing_destination_is_a_field_error(client):
    assert_problem(client.get("/api/page/quote", {"from": "Wien"}), 400, "invalid_request", field="to")
