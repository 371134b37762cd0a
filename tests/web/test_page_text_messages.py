"""The booking page's optional "also send me text messages (SMS)": the page checkout stores the
choice with the booking; only JSON true or false is taken; the v1 and agent checkouts do not take it."""

import pytest

from booking.models import Booking
from tests.booking.test_checkout import ride, server_amount
from tests.conftest import assert_problem
from tests.mcp_endpoint.mcp import call, checkout_arguments, tool_problem
from tests.web.test_page_checkout import page_ride, post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


@pytest.mark.parametrize(
    ("sent", "stored"), [({"textMessages": True}, True), ({"textMessages": False}, False), ({}, False)]
)
def test_the_page_checkout_stores_the_travellers_choice(client, sent, stored):
    data = page_ride(**sent)
    response = post(client, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 201, response.content
    assert Booking.objects.get().text_messages is stored


@pytest.mark.parametrize("sent", ["yes", "true", 1, None])
def test_anything_but_true_or_false_is_refused_and_stores_nothing(client, sent):
    data = page_ride(textMessages=sent)
    response = post(client, {"amount": 7400, "bookingData": data})
    assert_problem(response, 400, "invalid_request", "bookingData.textMessages")
    assert not Booking.objects.exists()


def test_the_page_checkout_documents_the_choice(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    member = schemas["PageBookingDataInputRequest"]["properties"]["textMessages"]
    assert member["type"] == "boolean" and "SMS" in member["description"]
    assert "textMessages" not in schemas["BookingDataInputRequest"]["properties"]


def test_the_v1_checkout_does_not_take_it(client, agent):
    data = ride(textMessages=True, phone="+43 660 1234567")
    response = client.post(
        "/api/v1/checkout",
        {"amount": server_amount(client, data), "bookingData": data},
        content_type="application/json",
        **agent,
    )
    assert response.status_code == 201, response.content
    assert Booking.objects.get().text_messages is False


def test_the_agent_checkout_refuses_it_by_name(client, agent):
    arguments = checkout_arguments(client, agent)
    arguments["bookingData"] |= {"textMessages": True, "phone": "+43 660 1234567"}
    problem = tool_problem(call(client, agent, "booking.create_checkout", arguments))
    assert problem["code"] == "invalid_request" and "bookingData.textMessages" in problem["errors"]
    assert not Booking.objects.exists()
