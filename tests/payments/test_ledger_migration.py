"""The ledger made from what bookings kept before it: rows written in the old shape (a paid booking, one with
a paid price difference, one partly refunded, one marked paid by staff, one unpaid, an open payment page)
become payments and refunds pointing at them; what each booking received, may still give back, and which
payment each refund goes to are what the old code computed from its fields. Migrated back, the fields are
as they were."""

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from booking.models import Booking
from payments import ledger
from payments.models import Payment, Refund
from tests.migrating import migrate, migrate_to_latest, old_booking

BEFORE_THE_LEDGER = [("payments", "0007_idempotent_answer_as_sent")]
VIENNA = ZoneInfo("Europe/Vienna")
COMMITTED = ("pending", "requires_action", "succeeded")


def at(day: int) -> datetime:
    return datetime(2026, 10, day, 10, 0, tzinfo=VIENNA)


def write_old_rows(old_apps) -> None:
    Surcharge, Refund = old_apps.get_model("payments", "Surcharge"), old_apps.get_model("payments", "Refund")
    clerk = old_apps.get_model("auth", "User").objects.create(username="clerk", is_staff=True)

    def booking(reference, **fields):
        return old_booking(old_apps, reference, **fields)

    paid = {"status": "paid", "received_cents": 7400}
    first = booking(
        "CB-PAID", **paid, paid_at=at(1), provider_session_id="cs_paid", payment_intent_id="pi_paid"
    )
    Surcharge.objects.create(  # a payment page still open: its money has not come
        booking=first,
        amount_cents=1500,
        status="pending",
        provider_session_id="cs_open",
        payment_url="https://x.test",
    )
    changed = booking(
        "CB-CHANGED",
        **{**paid, "received_cents": 7400 + 4200},
        paid_at=at(2),
        provider_session_id="cs_changed",
        payment_intent_id="pi_changed",
    )
    link = Surcharge.objects.create(
        booking=changed,
        amount_cents=4200,
        status="paid",
        method="provider",
        provider_session_id="cs_link",
        payment_intent_id="pi_link",
        paid_at=at(3),
    )
    Refund.objects.create(  # a part of the difference went back to its own payment
        booking=changed,
        amount_cents=1200,
        status="succeeded",
        provider_refund_id="re_link",
        payment_intent_id="pi_link",
        surcharge=link,
    )
    Surcharge.objects.create(booking=changed, amount_cents=900, status="pending")  # owed: no money
    refunded = booking(
        "CB-REFUNDED",
        **paid,
        paid_at=at(4),
        provider_session_id="cs_refunded",
        payment_intent_id="pi_refunded",
    )
    Refund.objects.create(
        booking=refunded,
        amount_cents=3000,
        status="succeeded",
        provider_refund_id="re_1",
        payment_intent_id="",
    )
    Refund.objects.create(
        booking=refunded, amount_cents=500, status="failed", provider_refund_id="re_2", payment_intent_id=""
    )
    cash = booking("CB-CASH", **paid, paid_at=at(5), payment_method="cash", marked_paid_by=clerk)
    Refund.objects.create(booking=cash, amount_cents=400, status="succeeded", method="manual")
    booking("CB-UNPAID", provider_session_id="cs_unpaid")


def old_books(old_apps) -> dict:
    """What the code before the ledger computed from the fields, per booking: received, refundable, and its
    provider payments newest first with what each still held (payments/refunds.py provider_payments)."""
    books = {}
    for booking in old_apps.get_model("booking", "Booking").objects.order_by("reference"):
        refunds = old_apps.get_model("payments", "Refund").objects.filter(booking=booking)
        surcharges = old_apps.get_model("payments", "Surcharge").objects.filter(booking=booking)
        committed = sum(r.amount_cents for r in refunds if r.status in COMMITTED)
        paid_differences = surcharges.exclude(paid_at=None)
        held = [(s.payment_intent_id, s.amount_cents) for s in paid_differences.order_by("-paid_at")]
        if booking.payment_method == "checkout" and booking.payment_intent_id:
            own = booking.received_cents - sum(s.amount_cents for s in paid_differences)
            held.append((booking.payment_intent_id, own))
        back: dict[str, int] = {}
        for refund in refunds.filter(status__in=COMMITTED, method="provider"):
            key = refund.payment_intent_id or booking.payment_intent_id
            back[key] = back.get(key, 0) + refund.amount_cents
        books[booking.reference] = {
            "received": booking.received_cents,
            "refundable": max(0, booking.received_cents - committed),
            "provider_payments": [(i, c - back.get(i, 0)) for i, c in held if c > back.get(i, 0)],
        }
    return books


def new_books() -> dict:
    return {
        booking.reference: {
            "received": ledger.received_cents(booking),
            "refundable": ledger.refundable_cents(booking),
            "provider_payments": [
                (payment.payment_intent_id, cents)
                for payment, cents in ledger.open_payments(booking, provider_only=True)
            ],
        }
        for booking in Booking.objects.order_by("reference")
    }


def old_fields(old_apps) -> list[tuple]:
    return list(
        old_apps.get_model("booking", "Booking")
        .objects.order_by("reference")
        .values_list(
            "reference", "received_cents", "payment_intent_id", "marked_paid_by__username", "paid_at"
        )
    )


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_ledger_is_made_from_the_old_fields_and_gives_them_back():
    old_apps = migrate(BEFORE_THE_LEDGER)
    try:
        write_old_rows(old_apps)
        before, fields_before = old_books(old_apps), old_fields(old_apps)
    finally:
        migrate_to_latest()

    assert new_books() == before
    waiting = Payment.objects.get(state="pending", kind="link")
    assert (waiting.kind, waiting.provider_session_id, waiting.amount_cents, waiting.received_at) == (
        "link",
        "cs_open",
        1500,
        None,
    )
    payments = Payment.objects.filter(state="received").order_by("received_at", "pk")
    assert [
        (
            [share.booking.reference for share in p.shares.all()],
            p.kind,
            p.state,
            p.amount_cents,
            p.provider,
            p.provider_session_id,
            p.payment_intent_id,
            p.recorded_by.username if p.recorded_by else None,
            p.received_at,
        )
        for p in payments
    ] == [
        (["CB-PAID"], "checkout", "received", 7400, "stripe", "cs_paid", "pi_paid", None, at(1)),
        (["CB-CHANGED"], "checkout", "received", 7400, "stripe", "cs_changed", "pi_changed", None, at(2)),
        (["CB-CHANGED"], "link", "received", 4200, "stripe", "cs_link", "pi_link", None, at(3)),
        (["CB-REFUNDED"], "checkout", "received", 7400, "stripe", "cs_refunded", "pi_refunded", None, at(4)),
        (["CB-CASH"], "staff", "received", 7400, "", None, "", "clerk", at(5)),
    ]
    assert Payment.objects.get(payment_intent_id="pi_link").surcharge.amount_cents == 4200
    # Each refund points at the payment it went back to.
    assert sorted(
        (r.booking.reference, r.amount_cents, r.payment.payment_intent_id, r.payment.kind)
        for r in Refund.objects.select_related("booking", "payment")
    ) == [
        ("CB-CASH", 400, "", "staff"),
        ("CB-CHANGED", 1200, "pi_link", "link"),
        ("CB-REFUNDED", 500, "pi_refunded", "checkout"),
        ("CB-REFUNDED", 3000, "pi_refunded", "checkout"),
    ]

    old_apps = migrate(BEFORE_THE_LEDGER)
    try:
        assert old_fields(old_apps) == fields_before
        assert "payment" not in {
            field.name for field in old_apps.get_model("payments", "Refund")._meta.fields
        }
    finally:
        migrate_to_latest()
