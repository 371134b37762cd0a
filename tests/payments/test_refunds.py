"""Refunds (payments/refunds.py): full and partial through Stripe's Refunds API (faked at the HTTP boundary),
never more than was received, and the refund webhooks (`refund.*`, `charge.refunded`) in any order: a
refund's state only moves forward, a refund made in Stripe's dashboard is recorded, a failed one alerted."""

from urllib.parse import parse_qsl

import pytest
import responses
from django.core import mail
from django.utils import timezone

from apikit.errors import DomainError
from booking.models import Booking, BookingEvent
from payments import refunds
from payments.models import ProcessedPaymentEvent, Refund
from payments.providers.base import PaymentError
from tests.payments.conftest import refund_booking
from tests.payments.stripe_events import API, deliver, event_payload, use_stripe

pytestmark = pytest.mark.django_db

REFUNDS = f"{API}/v1/refunds"
INTENT = "pi_3QxYzAbCdEfGhIjK0"


@pytest.fixture(autouse=True)
def stripe(settings):
    use_stripe(settings)


@pytest.fixture
def booking(make_booking):
    return make_booking(
        reference="CB-7K3Q9X",
        status="paid",
        paid_at=timezone.now(),
        payment_provider="stripe",
        provider_session_id="cs_test_a1",
        payment_intent_id=INTENT,
        email="anna@example.com",
    )


def refund_object(refund_id: str = "re_1", amount: int = 3700, status: str = "pending", **more) -> dict:
    """Shaped like Stripe's Refund object (docs.stripe.com/api/refunds/object)."""
    return {
        "id": refund_id,
        "object": "refund",
        "amount": amount,
        "balance_transaction": None,
        "charge": "ch_1",
        "created": 1767225600,
        "currency": "eur",
        "destination_details": {"type": "card"},
        "metadata": {"reference": "CB-7K3Q9X"},
        "payment_intent": INTENT,
        "reason": None,
        "receipt_number": None,
        "status": status,
        **more,
    }


def charge_object(amount_refunded: int, **more) -> dict:
    return {
        "id": "ch_1",
        "object": "charge",
        "amount": 7400,
        "amount_refunded": amount_refunded,
        "currency": "eur",
        "payment_intent": INTENT,
        "refunded": amount_refunded == 7400,
        **more,
    }


def states() -> list[tuple[str, int, str]]:
    return list(Refund.objects.order_by("pk").values_list("provider_refund_id", "amount_cents", "status"))


# --- refunding through Stripe -------------------------------------------------------------------------------


@responses.activate
def test_a_partial_refund_goes_to_stripe_with_an_idempotency_key(booking):
    responses.post(REFUNDS, json=refund_object())
    [refund] = refund_booking(booking.pk, 3700, reason="Goodwill.", actor="anna (staff)")
    sent = responses.calls[0].request
    assert dict(parse_qsl(sent.body)) == {
        "payment_intent": INTENT,
        "amount": "3700",
        "metadata[reference]": "CB-7K3Q9X",
    }
    assert sent.headers["Idempotency-Key"] == "refund-CB-7K3Q9X-0-3700"
    assert (refund.provider_refund_id, refund.status, refund.method) == ("re_1", "pending", "provider")
    assert refunds.refundable_cents(booking) == 3700  # a pending refund is money promised back
    assert refunds.refunded_cents(booking) == 0
    event = BookingEvent.objects.get()
    assert (event.kind, event.actor) == ("refund", "anna (staff)") and "re_1" in event.text


@responses.activate
def test_two_partial_refunds_make_a_full_one_and_no_cent_more(booking):
    responses.post(REFUNDS, json=refund_object("re_1", 4000, "succeeded"))
    responses.post(REFUNDS, json=refund_object("re_2", 3400, "succeeded"))
    refund_booking(booking.pk, 4000, reason="", actor="anna (staff)")
    refund_booking(booking.pk, 3400, reason="", actor="anna (staff)")
    assert refunds.refunded_cents(booking) == 7400
    with pytest.raises(DomainError) as refused:
        refund_booking(booking.pk, 1, reason="", actor="anna (staff)")
    assert "0.00 EUR" in refused.value.detail
    assert len(responses.calls) == 2 and len(states()) == 2  # the third never reached Stripe


@responses.activate
def test_more_than_was_paid_is_refused_before_stripe_is_asked(booking):
    with pytest.raises(DomainError):
        refund_booking(booking.pk, 7401, reason="", actor="anna (staff)")
    assert len(responses.calls) == 0 and states() == []


@responses.activate
def test_a_stripe_failure_keeps_nothing(booking):
    responses.post(REFUNDS, status=500, json={"error": {"type": "api_error", "message": "sk_test_123 boom"}})
    with pytest.raises(PaymentError) as failed:
        refund_booking(booking.pk, 7400, reason="", actor="anna (staff)")
    assert "sk_test" not in failed.value.detail
    assert states() == [] and not BookingEvent.objects.exists()


def test_an_unpaid_booking_has_nothing_to_refund(make_booking):
    booking = make_booking()
    with pytest.raises(DomainError):
        refund_booking(booking.pk, 100, reason="", actor="anna (staff)")


def test_a_refund_made_outside_the_provider_is_recorded_as_done(booking):
    [refund] = refund_booking(booking.pk, 500, reason="Cash back.", actor="anna (staff)", manual=True)
    assert (refund.method, refund.status, refund.provider_refund_id) == ("manual", "succeeded", None)


# --- the refund webhooks, in any order ----------------------------------------------------------------------


@responses.activate
def test_refund_news_moves_a_refund_forward_never_back(client, booking):
    responses.post(REFUNDS, json=refund_object())
    refund_booking(booking.pk, 3700, reason="", actor="anna (staff)")
    deliver(client, event_payload("refund.updated", refund_object(status="succeeded"), "evt_2"))
    assert states() == [("re_1", 3700, "succeeded")]
    deliver(client, event_payload("refund.created", refund_object(status="pending"), "evt_1"))  # late
    assert states() == [("re_1", 3700, "succeeded")]
    assert ProcessedPaymentEvent.objects.filter(booking=booking).count() == 2


def test_news_before_the_refund_is_known_records_it(client, booking):
    """A refund made in Stripe's dashboard, or one whose creation answer never reached us."""
    response = deliver(client, event_payload("refund.created", refund_object("re_9", 1000, "pending")))
    assert response.status_code == 200
    deliver(client, event_payload("refund.updated", refund_object("re_9", 1000, "succeeded"), "evt_2"))
    assert states() == [("re_9", 1000, "succeeded")]
    assert refunds.refundable_cents(booking) == 6400


@pytest.mark.parametrize(
    ("amount", "currency", "why"),
    [
        (99_999_900, "usd", "is in USD"),
        (7401, "eur", "more than the 74.00 EUR received"),
        (10, "gbp", "in GBP"),
    ],
)
def test_refund_news_that_cannot_be_this_bookings_is_not_recorded_but_alerted(
    client, booking, amount, currency, why, django_capture_on_commit_callbacks
):
    news = refund_object("re_9", amount, "succeeded", currency=currency)
    with django_capture_on_commit_callbacks(execute=True):
        assert deliver(client, event_payload("refund.created", news)).status_code == 200
    assert states() == [] and refunds.refundable_cents(booking) == 7400
    (alert,) = mail.outbox
    assert why in alert.body and "re_9" in alert.body


def test_a_failed_refund_is_recorded_and_the_operator_alerted(
    client, booking, django_capture_on_commit_callbacks
):
    deliver(client, event_payload("refund.updated", refund_object(status="succeeded"), "evt_1"))
    failed = refund_object(status="failed", failure_reason="expired_or_canceled_card")
    with django_capture_on_commit_callbacks(execute=True):
        deliver(client, event_payload("refund.failed", failed, "evt_2"))
    refund = Refund.objects.get()
    assert (refund.status, refund.failure_reason) == ("failed", "expired_or_canceled_card")
    assert refunds.refundable_cents(booking) == 7400  # the money is back with the operator
    (alert,) = mail.outbox
    assert alert.subject == "Refund to check for paid booking CB-7K3Q9X"
    assert "expired_or_canceled_card" in alert.body


@responses.activate
def test_a_refunded_charge_before_its_refund_event_asks_stripe_for_the_refunds(client, booking):
    responses.get(
        REFUNDS, json={"object": "list", "data": [refund_object(status="succeeded")], "has_more": False}
    )
    deliver(client, event_payload("charge.refunded", charge_object(3700)))
    assert dict(parse_qsl(responses.calls[0].request.url.split("?")[1])) == {
        "payment_intent": INTENT,
        "limit": "100",
    }
    deliver(client, event_payload("refund.created", refund_object(status="pending"), "evt_2"))
    assert states() == [("re_1", 3700, "succeeded")]


@responses.activate
def test_a_refunded_charge_that_lists_its_refunds_needs_no_question(client, booking):
    listed = {"object": "list", "data": [refund_object(status="succeeded")], "has_more": False}
    deliver(client, event_payload("charge.refunded", charge_object(3700, refunds=listed)))
    assert len(responses.calls) == 0 and states() == [("re_1", 3700, "succeeded")]


@responses.activate
def test_a_refunded_charge_we_cannot_check_is_left_for_stripe_to_deliver_again(client, booking):
    responses.get(REFUNDS, status=503, json={"error": {"type": "api_error"}})
    response = deliver(client, event_payload("charge.refunded", charge_object(7400)))
    assert response.status_code == 503
    assert states() == [] and not ProcessedPaymentEvent.objects.exists()  # the retry is processed


def test_refund_news_for_an_unknown_payment_changes_nothing(client, booking):
    other = refund_object(payment_intent="pi_other", metadata={})
    assert deliver(client, event_payload("refund.created", other)).status_code == 200
    assert states() == [] and ProcessedPaymentEvent.objects.get().booking is None


def test_a_malformed_refund_event_is_refused(client, booking):
    broken = refund_object(amount="37.00")
    assert deliver(client, event_payload("refund.created", broken)).status_code == 400
    assert states() == [] and Booking.objects.get().status == "paid"


@responses.activate
def test_a_refunded_charge_asks_stripe_whatever_staff_paid_back_by_hand(client, booking):
    """Money staff paid back by bank transfer is not the charge's: a dashboard refund is still found."""
    refund_booking(booking.pk, 2000, reason="Goodwill.", actor="staff", manual=True)
    responses.get(
        REFUNDS,
        json={"object": "list", "data": [refund_object("re_9", 1000, "succeeded")], "has_more": False},
    )
    deliver(client, event_payload("charge.refunded", charge_object(1000)))
    assert len(responses.calls) == 1
    assert sorted(Refund.objects.values_list("method", "amount_cents")) == [
        ("manual", 2000),
        ("provider", 1000),
    ]
    assert refunds.refundable_cents(booking) == 4400
