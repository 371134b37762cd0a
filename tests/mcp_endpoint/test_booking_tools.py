"""booking.get_booking and booking.cancel_booking: the same services as GET /api/v1/bookings/{reference}
and its cancel, the same answers (structuredContent is the v1 JSON) and the same refusals (as problems)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from booking.models import Booking
from payments.models import Refund
from tests.conftest import bearer
from tests.mcp_endpoint.mcp import call, checkout_arguments, output_validator, tool_problem, tool_result
from tests.payments.sandbox import pay_in_the_sandbox

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


@pytest.fixture
def reference(client, agent) -> str:
    checkout = tool_result(call(client, agent, "booking.create_checkout", checkout_arguments(client, agent)))
    booking = Booking.objects.get(reference=checkout["structuredContent"]["reference"])
    pay_in_the_sandbox(booking)
    return booking.reference


def test_get_booking_answers_what_v1_answers(client, agent, reference):
    result = tool_result(call(client, agent, "booking.get_booking", {"reference": reference}))
    v1 = client.get(f"/api/v1/bookings/{reference}", **agent)
    assert result["isError"] is False and result["structuredContent"] == v1.json()
    assert result["content"][0]["text"] == v1.content.decode()
    assert result["structuredContent"]["status"] == "paid"
    output_validator(client, agent, "booking.get_booking").validate(result["structuredContent"])


def test_another_token_needs_the_travellers_email(client, agent, reference):
    other = bearer("booking.read", "booking.write")
    problem = tool_problem(call(client, other, "booking.get_booking", {"reference": reference}))
    assert (problem["code"], problem["status"]) == ("not_found", 404)
    opened = tool_result(
        call(client, other, "booking.get_booking", {"reference": reference, "email": "anna@example.com"})
    )
    assert opened["structuredContent"]["reference"] == reference


def test_cancel_booking_cancels_under_the_policy_once(client, agent, reference):
    result = tool_result(call(client, agent, "booking.cancel_booking", {"reference": reference}))
    assert result["isError"] is False
    assert (result["structuredContent"]["status"], result["structuredContent"]["refundedEur"]) == (
        "cancelled",
        74.0,
    )
    output_validator(client, agent, "booking.cancel_booking").validate(result["structuredContent"])
    again = tool_result(call(client, agent, "booking.cancel_booking", {"reference": reference}))
    assert again["structuredContent"] == client.get(f"/api/v1/bookings/{reference}", **agent).json()
    assert Refund.objects.count() == 1


def test_a_refused_cancel_is_the_v1_problem_and_changes_nothing(client, agent, reference):
    Booking.objects.filter(reference=reference).update(pickup_at=timezone.now() - timedelta(hours=1))
    problem = tool_problem(call(client, agent, "booking.cancel_booking", {"reference": reference}))
    v1 = client.post(f"/api/v1/bookings/{reference}/cancel", {}, content_type="application/json", **agent)
    assert problem == v1.json() and problem["code"] == "not_cancellable"
    assert Booking.objects.get().status == "paid" and not Refund.objects.exists()


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({}, "reference"),
        ({"reference": "CB-X", "email": "nope"}, "email"),
        ({"reference": "CB-X", "pin": 1}, "pin"),
    ],
)
def test_bad_arguments_are_named(client, agent, arguments, field):
    problem = tool_problem(call(client, agent, "booking.get_booking", arguments))
    assert problem["code"] == "invalid_request" and field in problem["errors"]
