"""Payments on account moved into the ledger (payments 0014). Written in the old shape (two transfers
against one collective invoice of three rides, one of them partial, and one against a second invoice), each
becomes a received payment on account at the start of its day in Vienna, by its recorder, shared over its
invoice's rides the oldest first, each up to what it still owes; the invoices' standing, the export's
payment lines and the admin's list read the same. Migrated back, the old rows are as they were and the
ledger holds no payment on account; forward again, the same payments."""

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from accounting import export
from invoicing.models import Invoice
from payments import account_payments
from payments.models import AccountPayment, Payment
from tests.migrating import migrate, migrate_to_latest, old_booking

BEFORE = [("payments", "0013_surcharge_payment_fields")]
VIENNA = ZoneInfo("Europe/Vienna")


def write_old_rows(old_apps) -> None:
    Invoice = old_apps.get_model("invoicing", "Invoice")
    Line = old_apps.get_model("invoicing", "CollectiveInvoiceLine")
    AccountPayment = old_apps.get_model("payments", "AccountPayment")
    accountant = old_apps.get_model("auth", "User").objects.create(username="accountant", is_staff=True)
    account = old_apps.get_model("business", "CompanyAccount").objects.create(name="Acme")

    def collective(number: str, sequence: int, month: int, rides: list[tuple[str, int, int]]):
        invoice = Invoice.objects.create(
            kind="collective",
            company_account=account,
            period_start=date(2026, month, 1),
            due_on=date(2026, 11, 16),
            number=number,
            year=2026,
            sequence=sequence,
            issued_at=datetime(2026, 11, 2, 8, tzinfo=VIENNA),
            language="de",
            net_cents=0,
            vat_cents=0,
            gross_cents=sum(cents for _reference, _day, cents in rides),
            content={"number": number},
        )
        for reference, day, cents in rides:
            ride = old_booking(
                old_apps,
                reference,
                status="completed",
                payment_method="account",
                company_account=account,
                pickup_at=datetime(2026, 10, day, 9, tzinfo=VIENNA),
                amount_cents=cents,
            )
            Line.objects.create(invoice=invoice, booking=ride, gross_cents=cents)
        return invoice

    october = collective("2026-000001", 1, 10, [("CB-LATE", 9, 7400), ("CB-B", 5, 7400), ("CB-A", 5, 5000)])
    other = collective("2026-000002", 2, 9, [("CB-OTHER", 7, 9900)])
    AccountPayment.objects.create(
        invoice=october,
        amount_cents=10000,
        received_on=date(2026, 11, 9),
        note="part",
        recorded_by=accountant,
    )
    AccountPayment.objects.create(invoice=october, amount_cents=8000, received_on=date(2026, 11, 30))
    AccountPayment.objects.create(invoice=other, amount_cents=9900, received_on=date(2026, 11, 10))


def old_rows(old_apps) -> list[tuple]:
    return list(
        old_apps.get_model("payments", "AccountPayment")
        .objects.order_by("pk")
        .values_list(
            "pk",
            "invoice__number",
            "amount_cents",
            "received_on",
            "note",
            "recorded_by__username",
            "created_at",
        )
    )


def ledger_rows() -> list[tuple]:
    return [
        (
            transfer.pk,
            transfer.payment.kind,
            transfer.payment.state,
            transfer.payment.amount_cents,
            transfer.payment.received_at,
            transfer.recorded_by.username if transfer.recorded_by else None,
            list(transfer.payment.shares.order_by("pk").values_list("booking__reference", "amount_cents")),
        )
        for transfer in AccountPayment.objects.order_by("pk").select_related("payment__recorded_by")
    ]


def standings() -> dict:
    return {
        invoice.number: account_payments.standing(invoice, on=date(2026, 12, 1))
        for invoice in Invoice.objects.order_by("number")
    }


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_payments_on_account_become_payments_in_the_ledger_and_come_back():
    old_apps = migrate(BEFORE)
    try:
        write_old_rows(old_apps)
        rows_before = old_rows(old_apps)
    finally:
        migrate_to_latest()

    ids = [row[0] for row in rows_before]
    assert ledger_rows() == [
        (
            ids[0],
            "account",
            "received",
            10000,
            datetime(2026, 11, 9, tzinfo=VIENNA),
            "accountant",
            [("CB-A", 5000), ("CB-B", 5000)],
        ),
        (
            ids[1],
            "account",
            "received",
            8000,
            datetime(2026, 11, 30, tzinfo=VIENNA),
            None,
            [("CB-B", 2400), ("CB-LATE", 5600)],
        ),
        (
            ids[2],
            "account",
            "received",
            9900,
            datetime(2026, 11, 10, tzinfo=VIENNA),
            None,
            [("CB-OTHER", 9900)],
        ),
    ]
    assert [(t.note, t.received_on, t.payment.created_at) for t in AccountPayment.objects.order_by("pk")] == [
        (note, day, created) for _pk, _number, _cents, day, note, _user, created in rows_before
    ]
    assert {number: (s.paid_cents, s.open_cents, s.status) for number, s in standings().items()} == {
        "2026-000001": (18000, 1800, "overdue"),
        "2026-000002": (9900, 0, "paid"),
    }
    assert [
        (entry.number, entry.day, entry.gross_cents, entry.text)
        for entry in export.entries(first=date(2026, 11, 1), last=date(2026, 11, 30))
        if entry.kind == export.Kind.PAYMENT
    ] == [
        ("2026-000001", date(2026, 11, 9), 10000, f"Zahlung 2026-000001/{ids[0]}"),
        ("2026-000002", date(2026, 11, 10), 9900, f"Zahlung 2026-000002/{ids[2]}"),
        ("2026-000001", date(2026, 11, 30), 8000, f"Zahlung 2026-000001/{ids[1]}"),
    ]
    migrated = ledger_rows()

    old_apps = migrate(BEFORE)
    try:
        assert old_rows(old_apps) == rows_before
        assert not old_apps.get_model("payments", "Payment").objects.filter(kind="account").exists()
        assert not old_apps.get_model("payments", "PaymentShare").objects.exists()
    finally:
        migrate_to_latest()
    assert ledger_rows() == migrated
    assert Payment.objects.count() == 3
