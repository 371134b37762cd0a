"""A flight number at checkout, on every door that books: written as one, and (with a flight-data provider,
AeroDataBox faked at the HTTP boundary) landing at the pickup's airport on the pickup's day. A refusal
stores nothing; an outage of the provider refuses nobody."""

import json
from datetime import date

import pytest
import requests
import responses

from booking.models import Booking
from flights import budget, numbers
from flights.models import FlightBudget
from tests.booking.test_checkout import LEGACY, V1, post, ride, server_amount
from tests.conftest import assert_problem
from tests.mcp_endpoint.mcp import call, tool_problem

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]
URL = "https://aerodatabox.test"
AIRPORT = "Flughafen Wien-Schwechat (VIE), Schwechat"


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("OS 123", "OS123"),
        ("os123", "OS123"),
        ("LH-1234", "LH1234"),
        ("AUA 0123", "AUA123"),
        ("U2 5821", "U25821"),
        ("9W 12", "9W12"),
        ("BA2490A", "BA2490A"),
    ],
)
def test_flight_numbers_are_read_as_airlines_write_them(typed, read):
    assert str(numbers.parse(typed)) == read


@pytest.mark.parametrize("typed", ["hello", "123", "OS", "OS 12345", "99 123", "O 12", "OS 1 2", "x" * 30])
def test_what_is_no_flight_number_is_none(typed):
    assert numbers.parse(typed) is None


def airport_pickup(**overrides) -> dict:
    return ride(**{"from": AIRPORT, "to": "Hotel Sacher", **overrides})


@pytest.mark.parametrize("path", [LEGACY, V1])
def test_a_malformed_flight_number_is_refused_on_the_rest_doors(client, writer, path):
    data = airport_pickup(flightNumber="my flight")
    response = post(client, path, {"amount": server_amount(client, data), "bookingData": data}, **writer)
    assert response.status_code == 400, response.content
    if path == V1:
        body = assert_problem(response, 400, "invalid_request", "bookingData.flightNumber")
        assert "Not a flight number" in body["detail"]
    else:
        assert "Not a flight number" in response.json()["error"]
    assert not Booking.objects.exists()


def test_a_malformed_flight_number_is_refused_to_an_agent(client, agent):
    data = airport_pickup(flightNumber="tomorrow")
    arguments = {"amount": server_amount(client, data), "bookingData": data}
    problem = tool_problem(call(client, agent, "booking.create_checkout", arguments))
    assert problem["code"] == "invalid_request" and "bookingData.flightNumber" in problem["errors"]
    assert not Booking.objects.exists()


def test_any_flight_number_is_taken_without_a_provider(client):
    data = airport_pickup(flightNumber="LH 9999")
    response = post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 200, response.content
    assert Booking.objects.get().flight_number == "LH 9999"  # kept as typed


@pytest.fixture
def aero(settings):
    settings.AERODATABOX_API_KEY, settings.AERODATABOX_URL = "test-key", URL
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_passthru("http://testserver")
        yield mock


def flight_day(data: dict) -> date:
    return date.fromisoformat(data["pickupDatetime"][:10])


def lands(aero, data: dict, *, at: str = "VIE", status: int = 200, flight: str = "OS88") -> None:
    url = f"{URL}/flights/number/{flight.replace(' ', '')}/{flight_day(data).isoformat()}"
    if status != 200:
        aero.add(responses.GET, url, status=status)
        return
    leg = {
        "status": "Expected",
        "departure": {"airport": {"iata": "JFK", "countryCode": "US"}},
        "arrival": {"airport": {"iata": at}, "scheduledTime": {"utc": f"{flight_day(data)} 08:30Z"}},
    }
    aero.add(responses.GET, url, body=json.dumps([leg]), content_type="application/json")


def test_a_flight_landing_at_the_pickup_that_day_is_taken(client, writer, aero):
    data = airport_pickup(flightNumber="OS 88")
    lands(aero, data)
    response = post(client, V1, {"amount": server_amount(client, data), "bookingData": data}, **writer)
    assert response.status_code == 201, response.content
    assert len(aero.calls) == 1 and aero.calls[0].request.headers["X-RapidAPI-Key"] == "test-key"


def test_a_flight_landing_elsewhere_is_refused(client, writer, aero):
    data = airport_pickup(flightNumber="OS 88")
    lands(aero, data, at="MUC")
    response = post(client, V1, {"amount": server_amount(client, data), "bookingData": data}, **writer)
    body = assert_problem(response, 400, "invalid_request", "bookingData.flightNumber")
    assert "lands at MUC that day, not at the pickup's airport (VIE)" in body["detail"]
    assert not Booking.objects.exists()


def test_an_unknown_flight_is_refused(client, aero):
    data = airport_pickup(flightNumber="OS 88")
    lands(aero, data, status=404)
    response = post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 400
    assert "No flight OS88 lands on" in response.json()["error"]
    assert not Booking.objects.exists()


def test_an_outage_of_the_provider_refuses_nobody(client, aero):
    data = airport_pickup(flightNumber="OS 88")
    lands(aero, data, status=503)
    response = post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 200, response.content


def test_a_flight_number_on_a_ride_to_the_airport_is_only_read(client, aero):
    data = ride(flightNumber="OS 88")  # Hotel Sacher → the airport: the chauffeur meets no flight
    response = post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 200, response.content
    assert len(aero.calls) == 0


def test_any_text_is_taken_on_a_ride_that_meets_no_flight(client):
    data = ride(flightNumber="TBA")  # Hotel Sacher → the airport: the traveller's departure
    response = post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 200, response.content


def test_a_private_aircrafts_registration_is_taken_at_the_airport(client, aero):
    data = airport_pickup(flightNumber="OE-GLS")
    response = post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 200, response.content
    assert len(aero.calls) == 0


def test_a_way_backs_flight_is_refused_on_the_way_back(client, writer):
    out = airport_pickup(flightNumber="OS 88")
    back_pickup = out["pickupDatetime"][:11] + "18:00:00" + out["pickupDatetime"][19:]
    data = {
        **out,
        "wayBack": {
            "pickupDatetime": back_pickup,
            "from": AIRPORT,
            "to": "Hotel Sacher",
            "flightNumber": "soon",
        },
    }
    amount = 2 * server_amount(client, out)
    response = post(client, V1, {"amount": amount, "bookingData": data}, **writer)
    body = assert_problem(response, 400, "invalid_request", "bookingData.wayBack")
    assert "Not a flight number" in body["detail"]
    assert not Booking.objects.exists()


def test_with_the_shared_cache_down_the_form_alone_is_checked(client, aero, cache_down):
    data = airport_pickup(flightNumber="OS 88")
    lands(aero, data, at="MUC")
    response = post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 200, response.content  # nothing counted: nothing asked, nobody refused
    assert len(aero.calls) == 0


def test_after_an_outage_bookings_are_not_kept_waiting_on_the_provider(client, aero):
    data = airport_pickup(flightNumber="OS 88")
    lands(aero, data, status=503)
    for _ in range(2):
        response = post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
        assert response.status_code == 200, response.content
    assert len(aero.calls) == 1  # the second booking was not checked: the provider had just failed


def test_checks_at_booking_leave_half_the_budget_to_the_flights_followed(client, aero):
    FlightBudget.objects.create(daily_calls=4)
    for flight in ("OS 88", "OS 89", "OS 90"):
        data = airport_pickup(flightNumber=flight)
        lands(aero, data, flight=flight)
        response = post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
        assert response.status_code == 200, response.content
    assert [call.request.url.split("/")[-2] for call in aero.calls] == ["OS88", "OS89"]  # then half spent
    assert budget.used_today() == 2  # the check not sent counted nothing
    assert budget.spend() and budget.spend()  # the flights followed still have theirs
    assert not budget.spend()


def test_a_provider_that_times_out_refuses_nobody(client, aero):
    data = airport_pickup(flightNumber="OS 88")
    url = f"{URL}/flights/number/OS88/{flight_day(data).isoformat()}"
    aero.add(responses.GET, url, body=requests.exceptions.ReadTimeout("no answer in 8 s"))
    response = post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 200, response.content
    assert len(aero.calls) == 1


def test_an_unknown_flight_is_refused_to_an_agent(client, agent, aero):
    data = airport_pickup(flightNumber="OS 88")
    lands(aero, data, status=404)
    arguments = {"amount": server_amount(client, data), "bookingData": data}
    problem = tool_problem(call(client, agent, "booking.create_checkout", arguments))
    assert problem["code"] == "invalid_request" and "bookingData.flightNumber" in problem["errors"]
    assert "No flight OS88 lands on" in problem["detail"]
    assert not Booking.objects.exists()


def test_a_way_backs_flight_landing_elsewhere_is_refused_on_the_way_back(client, writer, aero):
    out = airport_pickup(flightNumber="OS 88")
    back_pickup = out["pickupDatetime"][:11] + "18:00:00" + out["pickupDatetime"][19:]
    back = {"pickupDatetime": back_pickup, "from": AIRPORT, "to": "Hotel Sacher", "flightNumber": "OS 89"}
    lands(aero, out)
    lands(aero, back, at="MUC", flight="OS89")
    amount = 2 * server_amount(client, out)
    response = post(client, V1, {"amount": amount, "bookingData": {**out, "wayBack": back}}, **writer)
    body = assert_problem(response, 400, "invalid_request", "bookingData.wayBack")
    assert "lands at MUC that day, not at the pickup's airport (VIE)" in body["detail"]
    assert not Booking.objects.exists()
