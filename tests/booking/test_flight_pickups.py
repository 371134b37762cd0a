"""A flight number at every door (legacy, /api/v1, MCP): accepted alike and kept as given, for the
chauffeur; only at a pickup at an airport does the chauffeur meet the flight (booking/ride.py: the arrivals
wording and the longer included wait). A departure's flight number on a ride from the hotel changes
nothing, and every door's schema says so."""

import pytest

from booking import ride
from booking.models import Booking
from tests.mcp_endpoint.mcp import call, checkout_arguments, result_of, rpc, tool_result

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]
DOORS = ("/api/create-checkout-session", "/api/v1/checkout", "booking.create_checkout")


def booked(client, agent, door: str, arguments: dict) -> Booking:
    if door.startswith("/"):
        response = client.post(door, arguments, content_type="application/json", **agent)
        assert response.status_code in (200, 201), response.content
        return Booking.objects.order_by("pk").last()
    result = tool_result(call(client, agent, door, arguments))
    assert result["isError"] is False, result
    return Booking.objects.get(reference=result["structuredContent"]["reference"])


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(
    ("origin", "destination", "met"),
    [("Hotel Sacher", "Flughafen Wien", False), ("Flughafen Wien", "Hotel Sacher", True)],
)
def test_every_door_keeps_the_flight_number_and_only_an_airport_pickup_meets_it(
    client, agent, door, origin, destination, met
):
    arguments = checkout_arguments(
        client, agent, flightNumber="OS 123", **{"from": origin, "to": destination}
    )
    booking = booked(client, agent, door, arguments)
    assert booking.flight_number == "OS 123" and ride.meets_a_flight(booking) is met


def test_the_schemas_say_what_a_flight_number_does(client, agent):
    document = client.get("/openapi.json").json()["components"]["schemas"]
    listed = {item["name"]: item for item in result_of(rpc(client, agent, "tools/list"))["tools"]}
    tool = listed["booking.create_checkout"]["inputSchema"]["properties"]["bookingData"]["properties"]
    described = [
        document["V1BookingDataInputRequest"]["properties"]["flightNumber"]["description"],
        tool["flightNumber"]["description"],
    ]
    for description in described:
        assert "Only at a pickup at an airport" in description and "changes nothing" in description
