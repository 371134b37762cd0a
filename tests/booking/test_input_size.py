"""Bounded storage: what a caller may have us store for an unpaid booking is bounded in
bytes (UTF-8 JSON), not in values or characters, on every door that takes booking data (legacy, /api/v1, the
page checkout, the MCP tool); a larger one is refused in the door's format and stores nothing."""

import re

import pytest

from booking.models import Booking
from booking.serializers import MAX_BOOKING_DATA_BYTES, MAX_FLIGHT_DATA_BYTES
from tests.booking.test_checkout import LEGACY, V1, post, ride, server_amount
from tests.conftest import assert_problem
from tests.mcp_endpoint.mcp import call, checkout_arguments, tool_problem
from tests.web.test_page_checkout import PAGE, page_ride

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]

# The attack run's payload: 11 members of 200 kB each (2.2 MB, under the 200-value limit of before).
ISSUE_FLIGHT_DATA = {f"leg{index}": "x" * 200_000 for index in range(11)}
# Few values and characters, many bytes: 2,100 two-byte letters.
WIDE_FLIGHT_DATA = {"remark": "ä" * 2_100}


def checkout(client, path, data, **headers):
    body = {"amount": server_amount(client, data), "bookingData": data}
    if path == "/api/page/checkout":
        body["termsAccepted"] = True  # the traveller's tick, which the page checkout requires
    return post(client, path, body, **headers)


def test_the_limits_are_the_ones_the_readme_states():
    assert (MAX_FLIGHT_DATA_BYTES, MAX_BOOKING_DATA_BYTES) == (4 * 1024, 16 * 1024)


def test_legacy_refuses_the_issues_flight_data_with_a_plain_400(client):
    response = checkout(client, LEGACY, ride(flightData=ISSUE_FLIGHT_DATA))
    assert response.status_code == 400
    assert "16384 bytes" in response.json()["error"]
    assert Booking.objects.count() == 0


@pytest.mark.parametrize(("path", "make"), [(V1, ride), (PAGE, page_ride)])
def test_v1_and_the_page_refuse_the_issues_flight_data_as_a_problem(client, writer, path, make):
    response = checkout(client, path, make(flightData=ISSUE_FLIGHT_DATA), **writer)
    body = assert_problem(response, 400, "invalid_request", "bookingData")
    assert "16384 bytes" in body["errors"]["bookingData"][0]
    assert Booking.objects.count() == 0


@pytest.mark.parametrize(("path", "make"), [(LEGACY, ride), (V1, ride), (PAGE, page_ride)])
def test_flight_data_is_counted_in_bytes_not_characters(client, writer, path, make):
    assert len(WIDE_FLIGHT_DATA["remark"]) < MAX_FLIGHT_DATA_BYTES
    response = checkout(client, path, make(flightData=WIDE_FLIGHT_DATA), **writer)
    assert response.status_code == 400
    assert "4096 bytes" in response.content.decode()
    assert Booking.objects.count() == 0


@pytest.mark.parametrize(("path", "make"), [(LEGACY, ride), (V1, ride), (PAGE, page_ride)])
def test_a_booking_body_over_16_kb_is_refused_even_in_names_it_does_not_declare(client, writer, path, make):
    response = checkout(client, path, make(comment="x" * MAX_BOOKING_DATA_BYTES), **writer)
    assert response.status_code == 400
    assert Booking.objects.count() == 0


@pytest.mark.parametrize(("path", "make"), [(LEGACY, ride), (V1, ride), (PAGE, page_ride)])
def test_flight_data_and_notes_within_the_limits_are_stored(client, writer, path, make):
    flight = {"remark": "ä" * 2_000}  # 4,000 bytes and a few of JSON
    response = checkout(client, path, make(flightData=flight, notes="n" * 1000), **writer)
    assert response.status_code in (200, 201), response.content
    booking = Booking.objects.get()
    assert booking.flight_data == flight and len(booking.notes) == 1000


@pytest.mark.parametrize(("path", "make"), [(LEGACY, ride), (V1, ride), (PAGE, page_ride)])
def test_notes_over_1000_characters_are_refused(client, writer, path, make):
    response = checkout(client, path, make(notes="n" * 1001), **writer)
    assert response.status_code == 400
    assert Booking.objects.count() == 0


def test_the_agent_tool_refuses_the_issues_payload_and_long_notes(client, agent):
    arguments = checkout_arguments(client, agent)
    for ride_data in (
        {**arguments["bookingData"], "flightData": ISSUE_FLIGHT_DATA},
        {**arguments["bookingData"], "notes": "n" * 1001},
    ):
        problem = tool_problem(
            call(client, agent, "booking.create_checkout", {**arguments, "bookingData": ride_data})
        )
        assert problem["code"] == "invalid_request" and problem["status"] == 400
    assert Booking.objects.count() == 0


def test_the_openapi_document_states_the_limits(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name in ("BookingDataInputRequest", "PageBookingDataInputRequest"):
        ride_schema = schemas[name]
        # maxLength counts the characters as sent, surrounding whitespace included; the pattern the rest.
        notes = ride_schema["properties"]["notes"]
        assert notes["maxLength"] == 1000
        assert re.fullmatch(notes["pattern"], f"  {'n' * 996}\n") and re.fullmatch(notes["pattern"], "")
        assert "4096 bytes" in ride_schema["properties"]["flightData"]["description"]
        assert "16384 bytes" in ride_schema["description"]
