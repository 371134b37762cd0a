"""A booking staff mark paid while its payment page is still open: the page's payment stops waiting and a
job closes the page at the provider, so the traveller cannot pay it a second time. Money the page took
first is not recorded twice: the operator is told to give it back."""

import pytest
import responses
from django.core import mail

from payments import ledger, payment_updates
from payments.models import Payment
from tests.payments import ledger_rows
from tests.payments.fake_stripe import FakeSession, FakeStripe
from tests.payments.stripe_events import deliver, event_payload, use_stripe

pytestmark = pytest.mark.django_db


@pytest.fixture
def stripe(settings):
    use_stripe(settings)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield FakeStripe().install(mock)


@pytest.fixture
def waiting(make_booking, stripe):
    """A booking awaiting its 74 EUR on its open Stripe page."""
    booking = make_booking(status="pending_payment", email="anna@example.com")
    stripe.sessions["cs_open"] = FakeSession("cs_open", booking.amount_cents, booking.reference)
    ledger_rows.checkout_page(booking, "cs_open", provider="stripe")
    return booking


def mark_paid(booking, capture) -> None:
    with capture(execute=True):
        payment_updates.mark_paid(booking.pk, method="cash", user=None, actor="vera")


def test_the_open_page_is_closed_and_cannot_take_the_money_again(
    client, waiting, stripe, django_capture_on_commit_callbacks
):
    mark_paid(waiting, django_capture_on_commit_callbacks)
    page = ledger.checkout_of(waiting)
    assert page is not None and page.state == Payment.State.CANCELLED
    assert stripe.sessions["cs_open"].status == "expired"
    stripe.pay(client, "cs_open")  # too late: the page is closed
    assert stripe.net() == 0
    assert [(p.kind, p.state) for p in Payment.objects.order_by("pk")] == [
        ("checkout", "cancelled"),
        ("staff", "received"),
    ]
    assert ledger.received_cents(waiting) == 7400


def test_money_the_page_took_first_is_the_operators_not_received_twice(
    client, waiting, stripe, django_capture_on_commit_callbacks
):
    stripe.sessions["cs_open"].status = "complete"  # paid at Stripe, its news still on its way
    stripe.sessions["cs_open"].intent, stripe.charged["pi_first"] = "pi_first", 7400
    mark_paid(waiting, django_capture_on_commit_callbacks)  # the page can no longer be closed
    mail.outbox.clear()
    news = event_payload(
        "checkout.session.completed", stripe._session_json(stripe.sessions["cs_open"]), "evt_1"
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert deliver(client, news).status_code == 200
    assert ledger.received_cents(waiting) == 7400  # once: what staff took
    assert ledger.checkout_of(waiting).state == Payment.State.CANCELLED
    assert any("after staff marked it paid by" in message.body for message in mail.outbox)


def test_in_the_sandbox_the_closed_page_is_not_taken_for_a_payment(
    make_booking, sandbox, django_capture_on_commit_callbacks, caplog
):
    booking = make_booking(status="pending_payment", provider_session_id="sbx_cs_open")
    mark_paid(booking, django_capture_on_commit_callbacks)
    assert ledger.checkout_of(booking).state == Payment.State.CANCELLED
    assert ledger.received_cents(booking) == 7400
    assert "not applied" not in caplog.text  # no payment of its own taken for one
