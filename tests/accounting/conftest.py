"""The seeded month of the accountant's export tests: an October in Vienna with its neighbours at Vienna's
midnights (invoices, credit notes, payments by card, in cash and on account, refunds)."""

from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from corporate.models import CompanyAccount
from invoicing.models import CreditNote, Invoice
from payments.models import Refund, Surcharge
from tests.booking.conftest import make_booking  # noqa: F401
from tests.payments import ledger_rows

VIENNA = ZoneInfo("Europe/Vienna")
UTC = ZoneInfo("UTC")
FIRST, LAST = date(2026, 10, 1), date(2026, 10, 31)
START, END = datetime(2026, 10, 1, tzinfo=VIENNA), datetime(2026, 11, 1, tzinfo=VIENNA)
# The reference's field names, in its order (docs/operations/accounting-export.md).
HEADER = [
    "satzart",
    "konto",
    "gkonto",
    "belegnr",
    "belegdatum",
    "buchsymbol",
    "buchcode",
    "prozent",
    "steuercode",
    "betrag",
    "steuer",
    "text",
]
CUSTOMERS, COMPANIES, REVENUE_10, PROVIDER, BANK, CASH = "20000", "20001", "4000", "2890", "2800", "2700"


class Numbers:
    invoice = credit = 0

    def next(self, kind: str) -> tuple[str, int]:
        setattr(self, kind, getattr(self, kind) + 1)
        sequence = getattr(self, kind)
        return (f"G-2026-{sequence:06d}" if kind == "credit" else f"2026-{sequence:06d}"), sequence


def vat_of(gross: int) -> int:
    return gross - int((Decimal(gross) / Decimal("1.10")).quantize(Decimal("1")))


@pytest.fixture
def issue():
    numbers = Numbers()

    def invoice(moment, gross, *, kind=Invoice.Kind.RIDE, **links) -> Invoice:
        number, sequence = numbers.next("invoice")
        vat = vat_of(gross)
        return Invoice.objects.create(
            number=number,
            year=2026,
            sequence=sequence,
            issued_at=moment,
            language="de",
            kind=kind,
            net_cents=gross - vat,
            vat_cents=vat,
            gross_cents=gross,
            content={"vat_rate": "0.10"},
            **links,
        )

    def credit_note(invoice, moment, gross, **links) -> CreditNote:
        number, sequence = numbers.next("credit")
        vat = vat_of(gross)
        return CreditNote.objects.create(
            number=number,
            year=2026,
            sequence=sequence,
            issued_at=moment,
            language="de",
            invoice=invoice,
            booking=invoice.booking,
            net_cents=gross - vat,
            vat_cents=vat,
            gross_cents=gross,
            content={"vat_rate": "0.10"},
            reason=CreditNote.Reason.REFUND,
            **links,
        )

    return invoice, credit_note


def refund(booking, cents, method, moment) -> Refund:
    made = Refund.objects.create(booking=booking, amount_cents=cents, status="succeeded", method=method)
    Refund.objects.filter(pk=made.pk).update(updated_at=moment)  # the moment it succeeded
    made.refresh_from_db()
    return made


@pytest.fixture
def october(make_booking, issue):  # noqa: F811  (the fixture imported above)
    """A month of money, and its neighbours at Vienna's midnights."""
    invoice, credit_note = issue
    at = lambda *parts: datetime(*parts, tzinfo=VIENNA)  # noqa: E731
    # Card payments through the provider, each with its ride invoice (74 EUR).
    card = make_booking(status="paid", paid_at=at(2026, 10, 5, 10))
    invoice(card.paid_at, card.amount_cents, booking=card)
    # 22:30 UTC on 30 September is 00:30 on 1 October in Vienna (summer time): inside.
    early = make_booking(status="paid", paid_at=datetime(2026, 9, 30, 22, 30, tzinfo=UTC))
    invoice(early.paid_at, early.amount_cents, booking=early)
    # A provider refund of 10 EUR on the card booking, and its credit note.
    back = refund(card, 1000, Refund.Method.PROVIDER, at(2026, 10, 15, 9))
    credit_note(Invoice.objects.get(booking=card), back.updated_at, 1000, refund=back)
    # A price difference paid through the provider, and its supplementary invoice.
    changed = make_booking(status="paid", paid_at=at(2026, 10, 2, 8))
    difference = Surcharge.objects.create(booking=changed, amount_cents=1500, status="paid")
    ledger_rows.received(changed, 1500, kind="link", surcharge=difference, at=at(2026, 10, 20, 12))
    invoice(changed.paid_at, changed.amount_cents, booking=changed)
    invoice(difference.paid_at, 1500, kind=Invoice.Kind.SUPPLEMENTARY, booking=changed, surcharge=difference)
    # A cash ride, given back 20 EUR by staff (a manual refund), with its credit note.
    cash = make_booking(status="paid", paid_at=at(2026, 10, 10, 18), payment_method="cash")
    invoice(cash.paid_at, cash.amount_cents, booking=cash)
    by_hand = refund(cash, 2000, Refund.Method.MANUAL, at(2026, 10, 12, 11))
    credit_note(Invoice.objects.get(booking=cash), by_hand.updated_at, 2000, refund=by_hand)
    # A company: September's collective invoice issued just after midnight, paid by transfer on 20 October.
    company = CompanyAccount.objects.create(
        name="Müller GmbH",
        street_address="Ring 1",
        postcode="1010",
        city="Wien",
        billing_email="b@example.com",
    )
    make_booking(status="paid", paid_at=at(2026, 10, 7, 9), payment_method="account", company_account=company)
    collective = invoice(
        at(2026, 10, 1, 0, 10),
        30000,
        kind=Invoice.Kind.COLLECTIVE,
        company_account=company,
        period_start=date(2026, 9, 1),
    )
    ledger_rows.on_account(collective, 30000, date(2026, 10, 20))
    # Outside: 23:30 UTC on 31 October is 00:30 on 1 November in Vienna (winter time); 21:30 UTC on
    # 30 September is 23:30 that day in Vienna.
    late = make_booking(status="paid", paid_at=datetime(2026, 10, 31, 23, 30, tzinfo=UTC))
    outside = [invoice(late.paid_at, late.amount_cents, booking=late)]
    before = make_booking(status="paid", paid_at=datetime(2026, 9, 30, 21, 30, tzinfo=UTC))
    outside.append(invoice(before.paid_at, before.amount_cents, booking=before))
    after = refund(early, 500, Refund.Method.PROVIDER, datetime(2026, 10, 31, 23, 30, tzinfo=UTC))
    outside.append(credit_note(Invoice.objects.get(booking=early), after.updated_at, 500, refund=after))
    ledger_rows.on_account(collective, 111, date(2026, 9, 30))
    ledger_rows.on_account(collective, 222, date(2026, 11, 1))
    return {"outside": outside, "card": card, "early": early, "changed": changed, "cash": cash}
