"""A warm read request makes no database query and exactly one Redis round trip: tokens, tariffs,
the lead-time policy and the rating snapshot are kept per process, and their shared versions ride on the
rate limiter's one round trip. Counted, not timed: speed itself lives in `make bench`."""

import json
import os

import pytest

from tests.conftest import bearer
from tests.roundtrips import count_redis_commands

pytestmark = pytest.mark.django_db

PICKUP, BOOKED = "2026-11-21T14:30:00+01:00", "2026-11-20T10:00:00+01:00"
READS = {
    "price": ("/api/v1/price", {"vehicleClass": "first", "distanceKm": "243.7", "inZoneA": "false"}),
    "distance": (
        "/api/v1/distance",
        {"from": "Stephansplatz", "to": "Flughafen Wien", "pickupDatetime": PICKUP},
    ),
    "places": ("/api/v1/places", {"input": "hotel sa"}),
    "availability": ("/api/v1/availability", {"pickupDatetime": PICKUP, "bookingDatetime": BOOKED}),
    "rating": ("/api/v1/rating", {}),
}
PRICE_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "name": "booking.calculate_price",
        "arguments": {"distanceKm": 243.7, "vehicleClass": "first"},
    },
}
REQUESTS = [*READS, "mcp price", "price without a token"]


def send(client, which: str, token: dict[str, str]):
    if which == "mcp price":
        return client.post("/api/mcp", json.dumps(PRICE_CALL), content_type="application/json", **token)
    path, query = READS[which.removesuffix(" without a token")]
    return client.get(path, query, **({} if which.endswith("without a token") else token))


def warm(client, which: str, token: dict[str, str]) -> None:
    for _ in range(2):  # the first loads what the process keeps; the second runs as every later one does
        response = send(client, which, token)
        assert response.status_code == 200, response.content
        assert "isError" not in response.content.decode() or not response.json()["result"]["isError"]


@pytest.mark.parametrize("which", REQUESTS)
def test_a_warm_read_request_makes_no_database_query(client, which, django_assert_num_queries):
    token = bearer("booking.read")
    warm(client, which, token)
    with django_assert_num_queries(0):
        assert send(client, which, token).status_code == 200


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"),
    reason="Redis round trips are counted on a real Redis (the PostgreSQL/Redis run sets REDIS_URL); the "
    "in-process cache here has none to count (its database queries are counted above)",
)
@pytest.mark.parametrize("which", REQUESTS)
def test_a_warm_read_request_makes_one_redis_round_trip(client, which):
    token = bearer("booking.read")
    warm(client, which, token)
    with count_redis_commands() as trips:
        response = send(client, which, token)
    assert response.status_code == 200
    assert "RateLimit" in response  # the one trip is the limiter's: it counted this request
    assert trips == ["EVALSHA"], trips
