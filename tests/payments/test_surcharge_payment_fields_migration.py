"""A price difference's provider ids and payment time moved into its payment in the ledger. Rows written in
the old shape (a link page waiting with its payment, one paid with it, and pages and payments that exist only
as the price difference's fields: waiting, withdrawn, paid online, collected by staff; and one owed without
a page) become the payments the code now reads, and the look-ups by session and the reconciliation find the
same price differences. Migrated back, the fields are as they were; forward again, the same payments."""

from datetime import UTC, datetime

import pytest
from django.test import override_settings

from booking.models import Booking
from payments import ledger, selectors
from payments.models import Payment, Surcharge
from tests.migrating import migrate, migrate_to_latest, old_booking

BEFORE = [("payments", "0012_documents_move_to_invoicing")]
AT = datetime(2026, 3, 4, 10, tzinfo=UTC)


def write_old_rows(old_apps) -> None:
    Payment = old_apps.get_model("payments", "Payment")
    PaymentShare = old_apps.get_model("payments", "PaymentShare")
    OldSurcharge = old_apps.get_model("payments", "Surcharge")

    def difference(reference, cents, payment=None, **fields):
        booking = old_booking(old_apps, reference, status="paid", paid_at=AT)
        surcharge = OldSurcharge.objects.create(booking=booking, amount_cents=cents, **fields)
        if payment is not None:  # as the ledger already recorded it
            made = Payment.objects.create(amount_cents=cents, surcharge=surcharge, **payment)
            PaymentShare.objects.create(payment=made, booking=booking, amount_cents=cents)

    link = {"kind": "link", "provider": "stripe"}
    difference("CB-OPEN", 4200, {**link, "provider_session_id": "cs_open"}, provider_session_id="cs_open")
    difference(
        "CB-PAID",
        1500,
        {
            **link,
            "state": "received",
            "provider_session_id": "cs_paid",
            "payment_intent_id": "pi_paid",
            "received_at": AT,
        },
        status="paid",
        provider_session_id="cs_paid",
        payment_intent_id="pi_paid",
        paid_at=AT,
    )
    difference("CB-F-OPEN", 700, provider_session_id="cs_field_open")
    difference("CB-F-GONE", 800, status="waived", provider_session_id="cs_field_withdrawn")
    difference(
        "CB-F-PAID",
        900,
        status="paid",
        reason="waiting",
        provider_session_id="cs_field_paid",
        payment_intent_id="pi_field_paid",
        paid_at=AT,
    )
    difference("CB-F-STAFF", 1100, status="paid", method="manual", paid_at=AT)
    difference("CB-OWED", 1300, reason="no_show", method="manual")


def old_fields(old_apps) -> list[tuple]:
    return list(
        old_apps.get_model("payments", "Surcharge")
        .objects.order_by("booking__reference")
        .values_list("booking__reference", "status", "provider_session_id", "payment_intent_id", "paid_at")
    )


def old_payments(old_apps) -> list[tuple]:
    return list(
        old_apps.get_model("payments", "Payment")
        .objects.order_by("pk")
        .values_list(
            "kind",
            "state",
            "provider",
            "provider_session_id",
            "payment_intent_id",
            "amount_cents",
            "received_at",
            "shares__booking__reference",
        )
    )


def payments_of_differences() -> dict:
    return {
        surcharge.booking.reference: (
            (p.kind, p.state, p.provider, p.provider_session_id, p.payment_intent_id, p.received_at)
            if (p := Payment.objects.filter(surcharge=surcharge).first())
            else None
        )
        for surcharge in Surcharge.objects.select_related("booking")
    }


MIGRATED = {
    "CB-OPEN": ("link", "pending", "stripe", "cs_open", "", None),
    "CB-PAID": ("link", "received", "stripe", "cs_paid", "pi_paid", AT),
    "CB-F-OPEN": ("link", "pending", "sandbox", "cs_field_open", "", None),
    "CB-F-GONE": ("link", "cancelled", "sandbox", "cs_field_withdrawn", "", None),
    "CB-F-PAID": ("link", "received", "sandbox", "cs_field_paid", "pi_field_paid", AT),
    "CB-F-STAFF": ("staff", "received", "", None, "", AT),
    "CB-OWED": None,
}


def assert_migrated() -> None:
    assert payments_of_differences() == MIGRATED
    # What the code reads of a price difference is what its fields said.
    assert {
        s.booking.reference: (s.provider_session_id, s.payment_intent_id, s.paid_at)
        for s in Surcharge.objects.select_related("booking")
    } == {
        "CB-OPEN": ("cs_open", "", None),
        "CB-PAID": ("cs_paid", "pi_paid", AT),
        "CB-F-OPEN": ("cs_field_open", "", None),
        "CB-F-GONE": ("cs_field_withdrawn", "", None),
        "CB-F-PAID": ("cs_field_paid", "pi_field_paid", AT),
        "CB-F-STAFF": (None, "", AT),
        "CB-OWED": (None, "", None),
    }
    for session in ("cs_open", "cs_paid", "cs_field_open", "cs_field_withdrawn", "cs_field_paid"):
        found = selectors.surcharge_for_session(session)
        assert found is not None and found.provider_session_id == session
    far = AT.replace(year=2100)
    assert sorted(s.booking.reference for s in selectors.unpaid_surcharges_since(far)) == [
        "CB-F-OPEN",
        "CB-OPEN",
    ]
    # Each payment carries its booking's share; what arrived counts as received.
    assert {booking.reference: ledger.received_cents(booking) for booking in Booking.objects.all()} == {
        "CB-OPEN": 0,
        "CB-PAID": 1500,
        "CB-F-OPEN": 0,
        "CB-F-GONE": 0,
        "CB-F-PAID": 900,
        "CB-F-STAFF": 1100,
        "CB-OWED": 0,
    }


@override_settings(PAYMENT_PROVIDER="sandbox")  # the provider of a page known only by its session
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_fields_become_the_payments_and_come_back():
    old_apps = migrate(BEFORE)
    try:
        write_old_rows(old_apps)
        fields_before, payments_before = old_fields(old_apps), old_payments(old_apps)
    finally:
        migrate_to_latest()
    assert_migrated()
    payments_after = list(Payment.objects.order_by("pk").values_list("pk", flat=True))

    old_apps = migrate(BEFORE)
    try:
        assert old_fields(old_apps) == fields_before
        # The payments made for pages known only as fields stay: the code of then reads them as well.
        payments_back = old_payments(old_apps)
        assert payments_back[: len(payments_before)] == payments_before
        assert len(payments_back) == len(payments_after)
    finally:
        migrate_to_latest()
    assert_migrated()
    assert list(Payment.objects.order_by("pk").values_list("pk", flat=True)) == payments_after
