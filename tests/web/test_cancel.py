"""Cancelling on the payment page: the checkout is closed at the provider (Stripe, faked at its HTTP
boundary), so a booking the traveller walked away from cannot be paid later; money that arrived first wins."""

from datetime import timedelta

import pytest
import requests
import responses
from django.utils import timezone

from booking.links import cancel_url
from booking.models import Booking, BookingStatus
from payments import cancellation
from tests.payments import ledger_rows
from tests.payments.test_stripe import PAID_SESSION, SESSION_ANSWER, SESSION_ID, SESSIONS

pytestmark = [
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
    pytest.mark.usefixtures("jobs_after_commit"),  # the worker runs each commit's jobs
]


@pytest.fixture
def stripe_booking(settings, make_booking):
    settings.PAYMENT_PROVIDER, settings.STRIPE_SECRET_KEY = "stripe", "sk_test_123"
    settings.STRIPE_API_BASE, settings.PUBLIC_BASE_URL = "https://stripe.test", "https://chauffeur.test"
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"
    return make_booking(
        payment_provider="stripe", provider_session_id=SESSION_ID, email="anna@example.com", locale="en"
    )


def cancel(client, booking):
    return client.get(cancel_url(booking.reference).removeprefix("https://chauffeur.test"))


@responses.activate
def test_the_cancel_page_closes_the_stripe_checkout_and_the_booking_expires(
    client, stripe_booking, mailoutbox
):
    expiry = responses.post(f"{SESSIONS}/{SESSION_ID}/expire", json={**SESSION_ANSWER, "status": "expired"})
    page = cancel(client, stripe_booking).content.decode()
    assert "Payment cancelled – nothing was charged" in page and 'id="resume"' in page
    stripe_booking.refresh_from_db()
    assert (stripe_booking.status, stripe_booking.paid_at) == (BookingStatus.EXPIRED, None)
    cancel(client, stripe_booking)  # a reload asks Stripe nothing more
    assert expiry.call_count == 1 and mailoutbox == []


@responses.activate
def test_money_that_arrived_before_the_cancel_pays_the_booking(client, stripe_booking, mailoutbox):
    responses.post(
        f"{SESSIONS}/{SESSION_ID}/expire",
        status=400,
        json={"error": {"type": "invalid_request_error", "message": "not open"}},
    )
    responses.get(
        f"{SESSIONS}/{SESSION_ID}", json={**PAID_SESSION, "amount_total": stripe_booking.amount_cents}
    )
    page = cancel(client, stripe_booking).content.decode()
    assert "This booking is already paid" in page
    stripe_booking.refresh_from_db()
    assert stripe_booking.status == BookingStatus.PAID
    assert sorted(message.to[0] for message in mailoutbox) == ["anna@example.com", "dispatch@chauffeur.test"]


@responses.activate
def test_stripe_down_leaves_the_booking_pending_and_says_nothing_was_charged(client, stripe_booking):
    responses.post(f"{SESSIONS}/{SESSION_ID}/expire", body=requests.ConnectionError("refused"))
    response = cancel(client, stripe_booking)
    assert response.status_code == 200
    assert "Nothing was charged. The payment page could not be closed just now" in response.content.decode()
    stripe_booking.refresh_from_db()
    assert stripe_booking.status == BookingStatus.PENDING_PAYMENT


# --- a pending booking cancelled elsewhere (staff, the customer's page, an agent) -----------------------


@responses.activate
def test_cancelling_a_pending_booking_closes_its_open_checkout(stripe_booking, mailoutbox):
    expiry = responses.post(f"{SESSIONS}/{SESSION_ID}/expire", json={**SESSION_ANSWER, "status": "expired"})
    cancelled = cancellation.cancel(stripe_booking.pk, actor="staff", by_staff=True)
    assert cancelled.status == BookingStatus.CANCELLED and expiry.call_count == 1
    stripe_booking.refresh_from_db()
    assert (stripe_booking.status, stripe_booking.paid_at) == (BookingStatus.CANCELLED, None)


@responses.activate
def test_money_that_beat_the_cancel_is_recorded_and_given_back(stripe_booking, mailoutbox):
    responses.post(
        f"{SESSIONS}/{SESSION_ID}/expire",
        status=400,
        json={"error": {"type": "invalid_request_error", "message": "not open"}},
    )
    paid = {**PAID_SESSION, "amount_total": stripe_booking.amount_cents}
    responses.get(f"{SESSIONS}/{SESSION_ID}", json=paid)
    refund = responses.post(
        "https://stripe.test/v1/refunds",
        json={
            "id": "re_late",
            "object": "refund",
            "amount": stripe_booking.amount_cents,
            "currency": "eur",
            "status": "succeeded",
            "payment_intent": paid["payment_intent"],
            "metadata": {},
        },
    )
    cancellation.cancel(stripe_booking.pk, actor="staff", by_staff=True)
    stripe_booking.refresh_from_db()
    assert stripe_booking.status == BookingStatus.CANCELLED and stripe_booking.paid_at is not None
    assert refund.call_count == 1  # the money went back through Stripe by itself
    [given_back] = stripe_booking.refunds.all()
    assert (given_back.amount_cents, given_back.status) == (stripe_booking.amount_cents, "succeeded")
    assert not any("refund or reinstate" in message.body for message in mailoutbox)


@responses.activate
def test_a_paid_booking_cancelled_asks_stripe_to_close_nothing(stripe_booking, mailoutbox):
    Booking.objects.filter(pk=stripe_booking.pk).update(
        status=BookingStatus.PAID,
        paid_at=timezone.now(),
        pickup_at=timezone.now() + timedelta(days=3),
    )
    ledger_rows.received(Booking.objects.get(pk=stripe_booking.pk), payment_intent_id="pi_1")
    responses.post(f"{SESSIONS}/{SESSION_ID}/expire", status=500)  # would fail the test if called
    responses.post(
        "https://stripe.test/v1/refunds",
        json={
            "id": "re_1",
            "object": "refund",
            "amount": 7400,
            "currency": "eur",
            "status": "succeeded",
            "payment_intent": "pi_1",
            "metadata": {},
        },
    )
    cancellation.cancel(stripe_booking.pk, actor="staff", by_staff=True)
    assert not [call for call in responses.calls if call.request.url.endswith("/expire")]
