"""A charge after the booking and a credit as priced lines (payments/priced_lines.py, and the credit note's
line in invoicing/credit_notes.py): each charge of the kind its cause is, at the ride's VAT rate; a credit of
the kind of what it gives back; a document keeps a line as its words and its amount."""

from decimal import Decimal as D

import pytest

from booking.models import Booking
from invoicing import credit_notes, printed_lines
from invoicing.models import CreditNote
from payments import priced_lines
from payments.models import Payment, Refund, Surcharge
from pricing.lines import LineKind


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        (Surcharge.Reason.WAITING, LineKind.WAITING),
        (Surcharge.Reason.NO_SHOW, LineKind.NO_SHOW_FEE),
        (Surcharge.Reason.CHANGE, LineKind.ADJUSTMENT),
    ],
)
def test_a_charge_is_a_line_of_its_causes_kind(reason, kind):
    line = priced_lines.of_charge(Surcharge(reason=reason, amount_cents=2050), D("0.10"))
    assert (line.kind, line.code, line.amount, line.amount_cents, line.vat_rate) == (
        kind,
        reason.value,
        D("20.50"),
        2050,
        D("0.10"),
    )


def test_every_cause_has_its_kind_and_its_words():
    assert set(priced_lines.CHARGE_KINDS) == set(priced_lines.CHARGE_LABELS) == set(Surcharge.Reason)
    assert set(credit_notes.CREDIT_LABELS) == set(CreditNote.Reason)


def test_a_credit_of_the_ride_gives_back_fare_at_the_invoices_rate():
    ride = {"vat_rate": "0.20"}  # as the ride was invoiced
    credit = priced_lines.credit(Refund(amount_cents=1000, booking=Booking()))
    line = credit_notes.credit_line(credit, CreditNote.Reason.CANCELLATION, ride)
    assert (line.kind, line.code, line.amount, line.vat_rate) == (
        LineKind.FARE,
        "cancellation",
        D("10.00"),
        D("0.20"),
    )


def test_a_credit_of_a_waiting_charge_gives_back_waiting():
    supplement = {"vat_rate": "0.10"}  # as the supplementary invoice printed it
    waiting = Surcharge(pk=7, reason=Surcharge.Reason.WAITING, amount_cents=2000)
    paid_with = Payment(surcharge=waiting, payment_intent_id="pi_1")
    refund = Refund(amount_cents=500, booking=Booking(), payment=paid_with, method=Refund.Method.PROVIDER)
    credit = priced_lines.credit(refund)
    line = credit_notes.credit_line(credit, CreditNote.Reason.REFUND, supplement)
    assert (credit.charge_id, line.kind, line.amount) == (7, LineKind.WAITING, D("5.00"))


def test_a_document_keeps_a_line_as_words_amount_kind_and_rate():
    line = priced_lines.of_charge(Surcharge(reason=Surcharge.Reason.NO_SHOW, amount_cents=3700), D("0.10"))
    assert printed_lines.printed(printed_lines.worded(line, "No-show fee")) == {
        "label": "No-show fee",
        "amount": "37.00",
        "kind": "no_show_fee",
        "vat_rate": "0.10",
    }
