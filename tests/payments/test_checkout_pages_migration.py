"""The provider ids moved into the ledger. The bookings' payment pages: rows written in the old shape (a page waiting, one
paid, one expired, one whose payment failed, a booking paid in cash, one on account, one whose page never
opened) become the payments the code now writes, and the look-ups by session and the reconciliation find
the same bookings. Migrated back, the bookings' provider and session are as they were and the ledger holds
only the money it held. A refund's payment intent is its payment's; migrated back, it is written out again."""

import pytest
from django.test import override_settings

from booking.models import Booking
from payments import ledger, selectors
from payments.models import Payment, Refund
from tests.migrating import migrate, migrate_to_latest, old_booking

BEFORE = [("booking", "0020_money_in_the_ledger"), ("payments", "0009_ledger_rows")]


def write_old_rows(old_apps) -> None:
    Payment = old_apps.get_model("payments", "Payment")
    PaymentShare = old_apps.get_model("payments", "PaymentShare")

    def booking(reference, **fields):
        return old_booking(old_apps, reference, **fields)

    booking("CB-WAITING", provider_session_id="cs_waiting")
    paid = booking("CB-PAID", status="paid", provider_session_id="cs_paid")
    received = Payment.objects.create(  # as the ledger already recorded its money
        kind="checkout",
        state="received",
        provider="stripe",
        provider_session_id="cs_paid",
        payment_intent_id="pi_paid",
        amount_cents=7400,
        received_at=paid.created_at,
    )
    PaymentShare.objects.create(payment=received, booking=paid, amount_cents=7400)
    booking("CB-EXPIRED", status="expired", provider_session_id="cs_expired", amount_cents=9900)
    booking("CB-FAILED", status="payment_failed", provider_session_id="cs_failed")
    booking("CB-CASH", status="paid", payment_method="cash", payment_provider="none")
    booking("CB-ACCOUNT", status="paid", payment_method="account", payment_provider="account")
    booking("CB-NO-PAGE", payment_provider="sandbox")  # the provider failed at checkout


def old_fields(old_apps) -> list[tuple]:
    return list(
        old_apps.get_model("booking", "Booking")
        .objects.order_by("reference")
        .values_list("reference", "status", "provider_session_id", "payment_provider")
    )


def old_payments(old_apps) -> list[tuple]:
    return list(
        old_apps.get_model("payments", "Payment")
        .objects.order_by("pk")
        .values_list(
            "kind", "state", "provider_session_id", "payment_intent_id", "shares__booking__reference"
        )
    )


@override_settings(PAYMENT_PROVIDER="sandbox")  # what a booking whose page never opened was given
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_pages_become_payments_and_come_back():
    old_apps = migrate(BEFORE)
    try:
        write_old_rows(old_apps)
        fields_before, payments_before = old_fields(old_apps), old_payments(old_apps)
    finally:
        migrate_to_latest()

    pages = {
        booking.reference: page
        for booking in Booking.objects.all()
        if (page := ledger.checkout_of(booking)) is not None
    }
    assert {
        reference: (p.state, p.provider, p.provider_session_id, p.amount_cents, p.received_at is None)
        for reference, p in pages.items()
    } == {
        "CB-WAITING": ("pending", "stripe", "cs_waiting", 7400, True),
        "CB-PAID": ("received", "stripe", "cs_paid", 7400, False),
        "CB-EXPIRED": ("cancelled", "stripe", "cs_expired", 9900, True),
        "CB-FAILED": ("failed", "stripe", "cs_failed", 7400, True),
    }
    assert Payment.objects.count() == 4  # the paid page kept its one payment
    assert {p.shares.get().amount_cents for p in pages.values()} == {7400, 9900}
    # The look-ups by session and reconciliation's lists find the bookings they found by the old fields.
    assert {
        session: selectors.booking_for_session(session).reference
        for session in ("cs_waiting", "cs_paid", "cs_expired", "cs_failed")
    } == {
        "cs_waiting": "CB-WAITING",
        "cs_paid": "CB-PAID",
        "cs_expired": "CB-EXPIRED",
        "cs_failed": "CB-FAILED",
    }
    assert selectors.booking_for_session("cs_waiting", provider="sandbox") is None
    far = Booking.objects.latest("created_at").created_at.replace(year=2100)
    assert [b.reference for b in selectors.pending_payment_since(far)] == ["CB-WAITING"]
    assert [b.reference for b in selectors.never_given_a_payment_page(far)] == ["CB-NO-PAGE"]
    assert sum(ledger.received_cents(booking) for booking in Booking.objects.all()) == 7400

    old_apps = migrate(BEFORE)
    try:
        assert old_fields(old_apps) == fields_before
        assert old_payments(old_apps) == payments_before
    finally:
        migrate_to_latest()


BEFORE_REFUNDS_LOST_THEIR_INTENT = [("payments", "0010_checkout_pages_in_the_ledger")]


def old_refunds(old_apps) -> list[tuple]:
    return list(
        old_apps.get_model("payments", "Refund")
        .objects.order_by("pk")
        .values_list("amount_cents", "method", "payment_intent_id", "payment__payment_intent_id")
    )


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_refunds_intent_is_its_payments():
    old_apps = migrate(BEFORE_REFUNDS_LOST_THEIR_INTENT)
    try:
        Payment = old_apps.get_model("payments", "Payment")
        PaymentShare = old_apps.get_model("payments", "PaymentShare")
        OldRefund = old_apps.get_model("payments", "Refund")
        paid = old_booking(old_apps, "CB-PAID", status="paid")
        online = Payment.objects.create(
            kind="checkout", state="received", provider="stripe", payment_intent_id="pi_1", amount_cents=7400
        )
        PaymentShare.objects.create(payment=online, booking=paid, amount_cents=7400)
        made = {"booking": paid, "payment": online, "status": "succeeded"}
        OldRefund.objects.create(
            **made, amount_cents=1000, provider_refund_id="re_1", payment_intent_id="pi_1"
        )
        OldRefund.objects.create(**made, amount_cents=200, method="manual", payment_intent_id="")
        before = old_refunds(old_apps)
    finally:
        migrate_to_latest()

    assert [(r.amount_cents, r.payment_intent_id) for r in Refund.objects.order_by("pk")] == [
        (1000, "pi_1"),
        (200, ""),  # given back by staff: not to the provider's payment
    ]

    old_apps = migrate(BEFORE_REFUNDS_LOST_THEIR_INTENT)
    try:
        assert old_refunds(old_apps) == before
    finally:
        migrate_to_latest()
