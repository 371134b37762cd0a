"""Stripe webhooks (docs/decisions.md §9): signed events change bookings once each, in any order, and a paid
booking gets its confirmation e-mail exactly once."""

import time

import pytest
import responses
from django.core import mail
from django.test import Client

from booking.models import Booking, BookingStatus
from payments import ledger
from payments.models import Payment, ProcessedPaymentEvent
from tests.conftest import start_of_window
from tests.payments.fake_stripe import FakeStripe
from tests.payments.ledger_rows import own_intent
from tests.payments.stripe_events import WEBHOOK, deliver, event_payload, signed, use_stripe
from tests.processes import free_port

pytestmark = pytest.mark.django_db

SESSION = "cs_test_a1"


@pytest.fixture(autouse=True)
def stripe(settings):
    use_stripe(settings)


@pytest.fixture
def booking(make_booking):
    return make_booking(
        reference="CB-7K3Q9X",
        email="anna@example.com",
        locale="de",
        name="Anna",
        payment_provider="stripe",
        provider_session_id=SESSION,
    )


def event(
    event_type: str,
    event_id: str = "evt_1",
    payment_status: str = "paid",
    session: str = SESSION,
    reference: str = "CB-7K3Q9X",
    amount_total: int = 7400,
    currency: str = "eur",
    payment_intent: str = "pi_123",
) -> bytes:
    return event_payload(
        event_type,
        {
            "id": session,
            "object": "checkout.session",
            "status": "complete" if payment_status == "paid" else "open",
            "payment_status": payment_status,
            "payment_intent": payment_intent,
            "amount_total": amount_total,
            "currency": currency,
            "metadata": {"reference": reference},
        },
        event_id,
    )


def status() -> str:
    return Booking.objects.get().status


def ledger_rows_now() -> list[tuple]:
    """Every payment with its bookings: the booking's page is one row, whatever its news."""
    return [
        (
            p.pk,
            p.kind,
            p.state,
            p.provider,
            p.provider_session_id,
            p.payment_intent_id,
            p.amount_cents,
            *p.shares.values_list("booking__reference", "amount_cents"),
        )
        for p in Payment.objects.order_by("pk")
    ]


def test_the_booking_page_waits_in_the_ledger_and_its_money_moves_that_row(client, booking):
    [(pk, *waiting)] = ledger_rows_now()
    assert waiting == ["checkout", "pending", "stripe", SESSION, "", 7400, ("CB-7K3Q9X", 7400)]
    deliver(client, event("checkout.session.completed"))
    assert ledger_rows_now() == [
        (pk, "checkout", "received", "stripe", SESSION, "pi_123", 7400, ("CB-7K3Q9X", 7400))
    ]
    assert Payment.objects.get().received_at == Booking.objects.get().paid_at


@pytest.mark.parametrize(
    ("news", "state"),
    [
        ({"event_type": "checkout.session.expired"}, "cancelled"),
        ({"event_type": "checkout.session.async_payment_failed"}, "failed"),
    ],
)
def test_a_page_that_ends_without_money_ends_its_waiting_payment(client, booking, news, state):
    [(pk, _kind, _state, *rest)] = ledger_rows_now()
    deliver(client, event(news["event_type"], payment_status="unpaid"))
    assert ledger_rows_now() == [(pk, "checkout", state, *rest)]
    assert ledger.received_cents(Booking.objects.get()) == 0


def test_news_of_another_session_leaves_the_ledger_as_it_was(client, booking):
    before = ledger_rows_now()
    for index, kind in enumerate(("checkout.session.completed", "checkout.session.expired")):
        deliver(
            client, event(kind, event_id=f"evt_{index}", session="cs_someone_elses", payment_status="paid")
        )
    assert ledger_rows_now() == before and status() == BookingStatus.PENDING_PAYMENT


def test_a_completed_paid_session_makes_the_booking_paid_and_sends_the_confirmation(
    client, booking, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = deliver(client, event("checkout.session.completed"))
    assert (response.status_code, response.json()) == (200, {"received": True})
    stored = Booking.objects.get()
    assert (stored.status, own_intent(stored)) == (BookingStatus.PAID, "pi_123")
    assert stored.paid_at is not None and stored.confirmation_sent_at is not None
    customer, operator = mail.outbox
    assert (
        customer.to == ["anna@example.com"]
        and customer.subject == f"Zahlung für Ihre Buchung {stored.reference} erhalten"
        and "CB-7K3Q9X" in customer.body
    )
    assert "Hotel Sacher" in customer.alternatives[0][0] and customer.alternatives[0][1] == "text/html"
    assert operator.to == ["dispatch@chauffeur.test"] and operator.subject == "Paid booking CB-7K3Q9X"
    assert "anna@example.com" in operator.body  # dispatch gets the contact details


def test_a_replayed_event_is_processed_once_and_mails_once(
    client, booking, django_capture_on_commit_callbacks
):
    payload = event("checkout.session.completed")
    with django_capture_on_commit_callbacks(execute=True):
        deliver(client, payload)
        deliver(client, payload)
        deliver(client, event("checkout.session.async_payment_succeeded", event_id="evt_2"))
    assert status() == BookingStatus.PAID
    assert ProcessedPaymentEvent.objects.count() == 2
    assert len(mail.outbox) == 2  # one to the customer, one to the operator: not twice each


def test_a_forged_signature_is_refused_and_changes_nothing(client, booking):
    payload = event("checkout.session.completed")
    for signature in (
        signed(payload, secret="whsec_other"),
        "t=1,v1=00",
        "",
        signed(payload, at=int(time.time()) - 3600),
    ):
        response = client.post(
            WEBHOOK, payload, content_type="application/json", HTTP_STRIPE_SIGNATURE=signature
        )
        assert response.status_code == 400
    assert status() == BookingStatus.PENDING_PAYMENT
    assert ProcessedPaymentEvent.objects.count() == 0
    assert mail.outbox == []


def test_expired_after_paid_does_not_unpay(client, booking, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        deliver(client, event("checkout.session.completed", event_id="evt_paid"))
        deliver(client, event("checkout.session.expired", event_id="evt_expired", payment_status="unpaid"))
    assert status() == BookingStatus.PAID


def test_paid_after_expired_still_counts(client, booking, django_capture_on_commit_callbacks):
    deliver(client, event("checkout.session.expired", event_id="evt_expired", payment_status="unpaid"))
    assert status() == BookingStatus.EXPIRED
    with django_capture_on_commit_callbacks(execute=True):
        deliver(client, event("checkout.session.async_payment_succeeded", event_id="evt_late"))
    assert status() == BookingStatus.PAID
    assert len(mail.outbox) == 2
    assert [(p.state, p.payment_intent_id) for p in Payment.objects.all()] == [("received", "pi_123")]


def test_an_async_payment_that_fails(client, booking):
    deliver(client, event("checkout.session.completed", event_id="evt_1", payment_status="unpaid"))
    assert status() == BookingStatus.PENDING_PAYMENT  # completed, but the bank transfer is still on its way
    deliver(client, event("checkout.session.async_payment_failed", event_id="evt_2", payment_status="unpaid"))
    assert status() == BookingStatus.PAYMENT_FAILED
    assert mail.outbox == []


def test_unknown_events_and_sessions_are_acknowledged_and_ignored(client, booking):
    assert deliver(client, event("customer.created", event_id="evt_x")).status_code == 200
    other = event("checkout.session.completed", event_id="evt_y", session="cs_other", reference="CB-NNNNNN")
    assert deliver(client, other).status_code == 200
    assert status() == BookingStatus.PENDING_PAYMENT


@pytest.mark.parametrize(
    "changes",
    [
        {"session": "cs_\u0000"},
        {"event_id": "evt_\u0000"},
        {"session": "cs_\ud800"},  # a lone surrogate: valid JSON, not text a database stores
        {"event_id": "evt_\udfff"},
        {"reference": "CB-\ud800"},
        {"event_id": "evt_" + "x" * 300},
        {"payment_intent": "pi_" + "x" * 300},
        {"event_type": "checkout.session." + "x" * 100},
    ],
)
def test_ids_no_database_can_hold_are_refused_as_unreadable(client, booking, changes):
    event_type = changes.pop("event_type", "checkout.session.completed")
    assert deliver(client, event(event_type, **changes)).status_code == 400
    assert (status(), ProcessedPaymentEvent.objects.count()) == (BookingStatus.PENDING_PAYMENT, 0)


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"session": "cs_someone_elses"}, "not the booking's own"),
        ({"amount_total": 1}, "charged 1 eur"),
        ({"currency": "usd"}, "charged 7400 usd"),
    ],
)
def test_a_payment_that_does_not_pay_the_booking_is_recorded_and_alerted_not_applied(
    client, booking, django_capture_on_commit_callbacks, changes, why
):
    with django_capture_on_commit_callbacks(execute=True):
        assert deliver(client, event("checkout.session.completed", **changes)).status_code == 200
    stored = Booking.objects.get()
    assert (stored.status, stored.paid_at, stored.confirmation_sent_at) == (
        BookingStatus.PENDING_PAYMENT,
        None,
        None,
    )
    assert ProcessedPaymentEvent.objects.get().booking == stored  # the news is kept, with its booking
    (alert,) = mail.outbox  # to the operator only, no confirmation to the customer
    assert alert.to == ["dispatch@chauffeur.test"] and "CB-7K3Q9X" in alert.subject and why in alert.body


def test_the_webhook_is_exempt_from_csrf_and_from_the_rate_limit(booking, django_capture_on_commit_callbacks):
    strict = Client(enforce_csrf_checks=True)
    for index in range(65):
        response = deliver(strict, event("customer.updated", event_id=f"evt_{index}"))
        assert response.status_code == 200
        assert "RateLimit" not in response


def test_without_a_webhook_secret_there_is_no_webhook(client, settings, booking):
    settings.STRIPE_WEBHOOK_SECRET = ""
    assert deliver(client, event("checkout.session.completed")).status_code == 404
    assert status() == BookingStatus.PENDING_PAYMENT


# --- reconciling a pending booking --------------------------------------------------------------------

SESSION_JSON = {
    "id": SESSION,
    "object": "checkout.session",
    "status": "complete",
    "payment_status": "paid",
    "payment_intent": "pi_9",
    "metadata": {"reference": "CB-7K3Q9X"},
    "amount_total": 7400,
    "currency": "eur",
}


def test_session_data_asks_stripe_about_a_pending_booking(
    client, booking, django_capture_on_commit_callbacks
):
    with responses.RequestsMock() as mock, django_capture_on_commit_callbacks(execute=True):
        mock.get(f"https://stripe.test/v1/checkout/sessions/{SESSION}", json=SESSION_JSON)
        body = client.get("/api/get-session-data", {"session_id": SESSION}).json()["bookingData"]
        assert len(mock.calls) == 1
    assert (body["reference"], body["status"], body["paymentStatus"], body["amountCents"]) == (
        "CB-7K3Q9X",
        "paid",
        "paid",
        7400,
    )
    assert (body["from"], body["to"], body["priceEur"], body["locale"]) == (
        "Hotel Sacher",
        "Flughafen Wien",
        74.0,
        "de",
    )
    assert body["paidAt"].endswith(("+01:00", "+02:00"))  # Vienna time, not the stored UTC
    assert len(mail.outbox) == 2  # the webhook may never come: the confirmation does not depend on it
    with responses.RequestsMock() as mock:  # paid now: no second question to Stripe
        client.get("/api/get-session-data", {"session_id": SESSION})
        assert len(mock.calls) == 0


def test_session_data_keeps_the_stored_booking_when_stripe_is_down(client, booking):
    with responses.RequestsMock() as mock:
        mock.get(f"https://stripe.test/v1/checkout/sessions/{SESSION}", status=500)
        response = client.get("/api/get-session-data", {"session_id": SESSION})
    assert response.status_code == 200
    assert response.json()["bookingData"]["status"] == "pending_payment"


def test_session_data_of_an_unknown_session(client):
    response = client.get("/api/get-session-data", {"session_id": "cs_nope"})
    assert (response.status_code, response.json()) == (
        404,
        {"error": "No booking has this checkout session."},
    )
    assert client.get("/api/get-session-data").status_code == 400


def test_money_for_a_cancelled_booking_is_recorded_and_given_back_by_itself(
    client, booking, django_capture_on_commit_callbacks
):
    Booking.objects.filter(pk=booking.pk).update(
        status=BookingStatus.CANCELLED, cancellation_fee_cents=0
    )  # staff cancelled it while its payment page was open
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        stripe = FakeStripe().install(mock)
        stripe.charged["pi_123"] = 7400  # what the traveller paid on the page that was still open
        with django_capture_on_commit_callbacks(execute=True):
            deliver(client, event("checkout.session.completed"))
    stored = Booking.objects.get()
    assert stored.status == BookingStatus.CANCELLED
    assert stored.paid_at is not None and own_intent(stored) == "pi_123"
    assert stripe.refunded == {"pi_123": 7400}  # at Stripe, not only in our books
    [refund] = stored.refunds.all()
    assert (refund.amount_cents, refund.status, refund.reason) == (
        7400,
        "succeeded",
        "Paid after the booking was cancelled: given back.",
    )
    assert not [message for message in mail.outbox if "dispatch@chauffeur.test" in message.to]


def test_money_for_a_booking_staff_reinstated_before_its_refund_ran_stays(
    client, booking, django_capture_on_commit_callbacks
):
    from payments import payment_updates

    Booking.objects.filter(pk=booking.pk).update(status=BookingStatus.CANCELLED, cancellation_fee_cents=0)
    deliver(client, event("checkout.session.completed"))  # its refund job waits
    Booking.objects.filter(pk=booking.pk).update(status=BookingStatus.PAID)  # reinstated meanwhile
    payment_updates.give_back_late_payment.call(booking.pk)
    assert not Booking.objects.get().refunds.exists()


def test_the_webhook_answers_other_methods_in_json(client):
    response = client.get(WEBHOOK)
    assert (response.status_code, response["Allow"]) == (405, "POST")
    assert "error" in response.json()


def test_reconcile_payments_asks_about_old_pending_bookings(booking, django_capture_on_commit_callbacks):
    from datetime import timedelta
    from io import StringIO

    from django.core.management import call_command
    from django.utils import timezone

    Booking.objects.filter(pk=booking.pk).update(created_at=timezone.now() - timedelta(hours=1))
    out = StringIO()
    with responses.RequestsMock() as mock, django_capture_on_commit_callbacks(execute=True):
        mock.get(f"https://stripe.test/v1/checkout/sessions/{SESSION}", json=SESSION_JSON)
        call_command("reconcile_payments", stdout=out)
    assert status() == BookingStatus.PAID
    assert "1 changed state" in out.getvalue()


def test_reconcile_payments_expires_old_bookings_that_never_got_a_payment_page(make_booking):
    from datetime import timedelta
    from io import StringIO

    from django.core.management import call_command
    from django.utils import timezone

    stranded = make_booking(provider_session_id=None)  # the provider failed at checkout
    recent = make_booking(provider_session_id=None)
    Booking.objects.filter(pk=stranded.pk).update(created_at=timezone.now() - timedelta(hours=1))
    out = StringIO()
    with responses.RequestsMock() as mock:
        call_command("reconcile_payments", stdout=out)
        assert not mock.calls  # nothing to ask the provider about
    stranded.refresh_from_db(), recent.refresh_from_db()
    assert (stranded.status, recent.status) == (BookingStatus.EXPIRED, BookingStatus.PENDING_PAYMENT)
    assert "1 without a payment page expired" in out.getvalue()


def test_the_success_page_asks_stripe_at_most_once_per_few_seconds_and_is_rate_limited(client, booking):
    open_session = {**SESSION_JSON, "status": "open", "payment_status": "unpaid"}
    start_of_window(client)
    with responses.RequestsMock() as mock:
        mock.get(f"https://stripe.test/v1/checkout/sessions/{SESSION}", json=open_session)
        pages = [client.get("/booking/success", {"session_id": SESSION}) for _ in range(60)]
        assert len(mock.calls) == 1  # sixty reloads, one question to Stripe
    assert all(page.status_code == 200 and "CB-7K3Q9X" in page.content.decode() for page in pages)
    assert pages[-1]["RateLimit"].startswith('"default";r=0;')
    refused = client.get("/booking/success", {"session_id": SESSION})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert refused["Content-Type"].startswith("text/html") and "Too many requests" in refused.content.decode()
    assert status() == BookingStatus.PENDING_PAYMENT


def test_without_the_shared_cache_the_success_page_still_asks_stripe_once(client, booking, settings):
    settings.CACHES = {
        "default": {  # a Redis that is not there: every cache call fails
            "BACKEND": "apikit.cache.BreakerRedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.05, "SOCKET_TIMEOUT": 0.05},
        }
    }
    open_session = {**SESSION_JSON, "status": "open", "payment_status": "unpaid"}
    with responses.RequestsMock() as mock:
        mock.get(f"https://stripe.test/v1/checkout/sessions/{SESSION}", json=open_session)
        pages = [client.get("/booking/success", {"session_id": SESSION}) for _ in range(30)]
        assert len(mock.calls) == 1  # this process remembers it asked
    assert all(page.status_code == 200 and "CB-7K3Q9X" in page.content.decode() for page in pages)
    assert status() == BookingStatus.PENDING_PAYMENT
