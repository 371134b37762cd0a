"""A booking's lifecycle for customers and agents on /api/v1 (docs/decisions.md §9): GET
/api/v1/bookings/{reference} and POST …/cancel, for the token that booked it or the customer's e-mail,
with the cancellation policy's terms and problem+json refusals that change nothing."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from access.models import ApiToken
from booking.models import Booking, BookingChannel, BookingEvent
from payments.models import Refund
from tests.booking.test_checkout import V1, post, ride, server_amount
from tests.conftest import PROBLEM_JSON, assert_problem, bearer
from tests.payments.sandbox import pay_in_the_sandbox

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


def book(client, token: dict, **changes) -> str:
    data = ride(**changes)
    response = post(client, V1, {"amount": server_amount(client, data), "bookingData": data}, **token)
    assert response.status_code == 201, response.content
    return response.json()["reference"]


def pay(reference: str) -> None:
    booking = Booking.objects.get(reference=reference)
    pay_in_the_sandbox(booking)


def url(reference: str, action: str = "") -> str:
    return f"/api/v1/bookings/{reference}{action}"


def test_the_token_that_booked_it_reads_its_state_and_terms(client, agent):
    reference = book(client, agent)
    response = client.get(url(reference), **agent)
    assert response.status_code == 200
    body = response.json()
    assert (body["reference"], body["status"], body["paymentStatus"]) == (
        reference,
        "pending_payment",
        "unpaid",
    )
    assert (body["from"], body["to"], body["vehicleClass"], body["priceEur"]) == (
        "Hotel Sacher",
        "Flughafen Wien",
        "executive",
        74.0,
    )
    assert body["driver"] is None and body["refundedEur"] == 0
    assert body["cancellation"] == {
        "allowed": True,
        "feeEur": 0.0,
        "refundEur": 0.0,
        "refusal": None,
        "freeUntil": (timezone.localtime(Booking.objects.get().pickup_at) - timedelta(hours=24)).isoformat(),
    }
    assert body["manageUrl"].startswith("https://chauffeur.test/booking/manage?booking=")
    stored = Booking.objects.get()
    assert (stored.channel, stored.api_token.name) == (BookingChannel.API, "test client")


def test_the_customers_email_opens_it_without_a_token(client, agent):
    reference = book(client, agent)
    response = client.get(url(reference.lower()), {"email": " Anna@Example.com"})
    assert response.status_code == 200 and response.json()["reference"] == reference


@pytest.mark.parametrize(
    ("who", "query"),
    [("another token", {}), ("no token", {}), ("a wrong e-mail", {"email": "eve@example.com"})],
)
def test_anyone_else_learns_nothing(client, agent, who, query):
    reference = book(client, agent)
    headers = bearer("booking.read") if who == "another token" else {}
    refused = assert_problem(client.get(url(reference), query, **headers), 404, "not_found")
    unknown = assert_problem(client.get(url("CB-XXXXXX"), query, **headers), 404, "not_found")
    assert refused["detail"] == unknown["detail"]


def test_the_booking_token_needs_the_scope_of_the_operation(client, writer):
    reference = book(client, writer)  # a token with booking.write alone
    response = client.get(url(reference), **writer)
    assert_problem(response, 403, "insufficient_scope")
    assert response["WWW-Authenticate"] == (
        'Bearer error="insufficient_scope", scope="booking.read booking.write", '
        'resource_metadata="https://chauffeur.test/.well-known/oauth-protected-resource/api/v1"'
    )
    assert client.get(url(reference), {"email": "anna@example.com"}, **writer).status_code == 200


def test_a_bad_token_is_401_and_a_bad_email_400(client, agent):
    reference = book(client, agent)
    response = client.get(url(reference), HTTP_AUTHORIZATION="Bearer cbt_nope")
    assert_problem(response, 401, "unauthorized")
    assert_problem(client.get(url(reference), {"email": "not-an-address"}), 400, "invalid_request", "email")


def test_cancel_with_the_token_refunds_under_the_policy(client, agent):
    reference = book(client, agent)
    pay(reference)
    response = post(client, url(reference, "/cancel"), {}, **agent)
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["cancellationFeeEur"], body["refundedEur"]) == ("cancelled", 0.0, 74.0)
    assert body["cancellation"]["allowed"] is False and body["cancelledAt"] is not None
    assert Refund.objects.get().amount_cents == 7400
    assert BookingEvent.objects.filter(kind="status").last().actor == "API token “test client”"
    again = post(client, url(reference, "/cancel"), {}, **agent)
    assert again.status_code == 200 and again.json()["refundedEur"] == 74.0 and Refund.objects.count() == 1


def test_cancel_with_the_customers_email_late_keeps_the_fee(client, agent):
    # Booked at 10:00 in Vienna, whatever the hour the suite runs: at night the lead time's night rule
    # offers no pickup before the morning.
    with time_machine.travel(timezone.localtime().replace(hour=10, minute=0) + timedelta(days=1), tick=True):
        cancel_late(client, agent)


def cancel_late(client, agent):
    soon = (timezone.localtime() + timedelta(hours=5)).replace(microsecond=0)
    reference = book(client, agent, pickupDatetime=soon.isoformat())
    pay(reference)
    response = post(client, url(reference, "/cancel"), {"email": "anna@example.com"})
    assert response.status_code == 200
    assert (response.json()["cancellationFeeEur"], response.json()["refundedEur"]) == (37.0, 37.0)
    assert BookingEvent.objects.filter(kind="status").last().actor == "customer"


def test_a_cancel_the_policy_refuses_is_409_and_changes_nothing(client, agent):
    reference = book(client, agent)
    pay(reference)
    Booking.objects.filter(reference=reference).update(pickup_at=timezone.now() - timedelta(minutes=1))
    # A German browser changes nothing: the API's messages are part of its contract (German staff read
    # the same refusal in German in the admin: tests/booking/test_german_back_office.py).
    response = post(client, url(reference, "/cancel"), {}, **agent, HTTP_ACCEPT_LANGUAGE="de")
    body = assert_problem(response, 409, "not_cancellable")
    assert body["detail"] == "The pickup time has passed: the booking can no longer be cancelled online."
    terms = client.get(url(reference), **agent, HTTP_ACCEPT_LANGUAGE="de").json()["cancellation"]
    assert terms["refusal"] == body["detail"]
    assert Booking.objects.get().status == "paid" and not Refund.objects.exists()


@pytest.mark.parametrize("body", ["[]", '"x"', "{", '{"email": 5}'])
def test_a_malformed_cancel_body_is_400(client, agent, body):
    reference = book(client, agent)
    response = client.post(url(reference, "/cancel"), body, content_type="application/json", **agent)
    assert response.status_code == 400 and response["Content-Type"] == PROBLEM_JSON
    assert Booking.objects.get().status == "pending_payment"


def test_a_cancel_needs_the_write_scope_and_the_booking_token(client, agent):
    reference = book(client, agent)
    reader = bearer("booking.read")
    Booking.objects.filter(reference=reference).update(
        api_token=ApiToken.objects.order_by("pk").last()
    )  # reader's
    response = post(client, url(reference, "/cancel"), {}, **reader)
    assert_problem(response, 403, "insufficient_scope")
    assert response["WWW-Authenticate"] == (
        'Bearer error="insufficient_scope", scope="booking.read booking.write", '
        'resource_metadata="https://chauffeur.test/.well-known/oauth-protected-resource/api/v1"'
    )
    assert_problem(post(client, url(reference, "/cancel"), {}, **agent), 404, "not_found")  # not agent's now
    assert Booking.objects.get().status == "pending_payment" and not BookingEvent.objects.exists()
