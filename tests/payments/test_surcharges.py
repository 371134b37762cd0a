"""Price differences paid through a payment link (payments/surcharges.py): the link's checkout session is
paid by Stripe's webhook or found paid by reconcile_payments, only at its own amount; the booking's own
payment is never confused with it."""

import io

import pytest
import responses
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from booking.models import Booking, BookingEvent
from payments.models import Surcharge
from tests.payments.ledger_rows import link_page, own_intent, received_cents
from tests.payments.stripe_events import API, deliver, event_payload, use_stripe

pytestmark = pytest.mark.django_db
SESSION = "cs_test_difference"


@pytest.fixture(autouse=True)
def stripe(settings):
    use_stripe(settings)


@pytest.fixture
def surcharge(make_booking):
    booking = make_booking(
        reference="CB-7K3Q9X",
        status="paid",
        paid_at=timezone.now(),
        payment_provider="stripe",
        provider_session_id="cs_test_booking",
        payment_intent_id="pi_1",
    )
    owed = Surcharge.objects.create(booking=booking, amount_cents=4200)
    link_page(owed, SESSION, provider="stripe")
    return owed


def paid_session(amount: int = 4200) -> dict:
    return {
        "id": SESSION,
        "object": "checkout.session",
        "status": "complete",
        "payment_status": "paid",
        "payment_intent": "pi_2",
        "amount_total": amount,
        "currency": "eur",
        "metadata": {"reference": "CB-7K3Q9X"},
    }


def test_the_webhook_of_a_paid_difference_adds_to_what_was_received(client, surcharge):
    response = deliver(client, event_payload("checkout.session.completed", paid_session()))
    assert response.status_code == 200
    surcharge.refresh_from_db()
    booking = Booking.objects.get()
    assert (surcharge.status, booking.status, received_cents(booking)) == ("paid", "paid", 7400 + 4200)
    assert own_intent(booking) == "pi_1"  # the booking's own payment is untouched
    assert BookingEvent.objects.get().text == "Difference of 42.00 EUR paid online."
    deliver(client, event_payload("checkout.session.completed", paid_session(), "evt_2"))  # a replay
    assert received_cents(Booking.objects.get()) == 11600


def test_a_different_amount_is_kept_for_the_operator(client, surcharge, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        deliver(client, event_payload("checkout.session.completed", paid_session(amount=100)))
    surcharge.refresh_from_db()
    assert surcharge.status == "pending" and received_cents(Booking.objects.get()) == 7400
    assert "not 4200" in mail.outbox[0].body


@responses.activate
def test_reconcile_payments_finds_a_difference_paid_whose_webhook_was_lost(surcharge):
    Surcharge.objects.filter(pk=surcharge.pk).update(created_at=timezone.now() - timezone.timedelta(hours=1))
    responses.get(f"{API}/v1/checkout/sessions/{SESSION}", json=paid_session())
    out = io.StringIO()
    call_command("reconcile_payments", stdout=out)
    assert "1 price difference(s) found paid" in out.getvalue()
    surcharge.refresh_from_db()
    assert surcharge.status == "paid" and received_cents(Booking.objects.get()) == 11600
