"""Rides across the border on the invoice (invoicing/cross_border.py): the share of the route in
Austria printed in both languages, and under the operator's "austria_only" setting Austrian VAT on that
share only, in the PDF and in Invoice.net_cents/vat_cents; the setting is fixed at issue."""

from datetime import datetime
from decimal import Decimal

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from accounting import export as accounting_export
from invoicing import cross_border, invoice_pdf
from invoicing.models import CreditNote, Invoice
from operator_profile.models import OperatorProfile
from payments import surcharges
from payments.models import Surcharge
from tests.invoicing.test_invoices import VIENNA, operator, pay, pdf_text  # noqa: F401
from tests.payments.conftest import refund_booking

pytestmark = pytest.mark.django_db


@pytest.fixture
def abroad(make_booking):
    """Hotel Sacher → Bratislava airport, 61 km of which 62 % in Austria, priced at 74.00 EUR (10 % VAT)."""

    def make(**fields):
        values = {
            "name": "Anna Berger",
            "email": "anna@example.com",
            "destination": "Bratislava Airport (BTS)",
            "pickup_at": datetime(2026, 12, 2, 10, 0, tzinfo=VIENNA),
            "distance_km": Decimal("61.0"),
            "austria_share": Decimal("0.620"),
        }
        return pay(make_booking(**{**values, **fields}))

    return make


def vat_setting(value: str) -> None:
    OperatorProfile.objects.filter(id=1).update(foreign_route_vat=value)


def test_whole_vat_prints_the_share_and_keeps_todays_amounts(abroad):
    invoice = Invoice.objects.get(booking=abroad())
    assert (invoice.gross_cents, invoice.net_cents, invoice.vat_cents) == (7400, 6727, 673)
    text = pdf_text(invoice)
    for printed in (
        "Share of the route in Austria: 62 % (38 of 61 km)",
        "Net amount €67.27",
        "VAT 10 % €6.73",
        "Total amount €74.00",
    ):
        assert printed in text, printed
    assert "not taxable" not in text


def test_the_share_line_in_german(abroad):
    invoice = Invoice.objects.get(booking=abroad(locale="de"))
    text = pdf_text(invoice)
    assert "Anteil der Strecke in Österreich: 62 % (38 von 61 km)" in text
    assert "Nettobetrag 67,27\xa0€" in text and "USt 10 % 6,73\xa0€" in text


def test_austria_only_splits_the_gross_by_the_share(abroad):
    vat_setting(cross_border.AUSTRIA_ONLY)
    invoice = Invoice.objects.get(booking=abroad())
    # By hand: 74.00 × 0.62 = 45.88 in Austria, 45.88 / 1.1 = 41.709 → 41.71 net and 4.17 VAT;
    # 74.00 − 45.88 = 28.12 abroad without Austrian VAT; net 41.71 + 28.12 = 69.83.
    assert (invoice.gross_cents, invoice.net_cents, invoice.vat_cents) == (7400, 6983, 417)
    assert invoice.net_cents + invoice.vat_cents == invoice.gross_cents
    text = pdf_text(invoice)
    for printed in (
        "Share of the route in Austria: 62 % (38 of 61 km)",
        "Austrian share (62 %), net €41.71",
        "VAT 10 % €4.17",
        "Share abroad (38 %) €28.12",
        "not taxable in Austria (UStG §3a (10))",
        "Net amount €69.83",
        "Total amount €74.00",
    ):
        assert printed in text, printed
    assert "€6.73" not in text


def test_austria_only_in_german(abroad):
    vat_setting(cross_border.AUSTRIA_ONLY)
    text = pdf_text(Invoice.objects.get(booking=abroad(locale="de")))
    for printed in (
        "Anteil der Strecke in Österreich: 62 % (38 von 61 km)",
        "Anteil in Österreich (62 %), netto 41,71\xa0€",
        "USt 10 % 4,17\xa0€",
        "Anteil im Ausland (38 %) 28,12\xa0€",
        "in Österreich nicht steuerbar (UStG §3a (10))",
        "Nettobetrag 69,83\xa0€",
        "Gesamtbetrag 74,00\xa0€",
    ):
        assert printed in text, printed


@pytest.mark.parametrize(
    ("at_issue", "later"),
    [(cross_border.AUSTRIA_ONLY, cross_border.WHOLE), (cross_border.WHOLE, cross_border.AUSTRIA_ONLY)],
)
def test_changing_the_setting_later_changes_no_issued_invoice(abroad, at_issue, later):
    vat_setting(at_issue)
    invoice = Invoice.objects.get(booking=abroad())
    before = (invoice.net_cents, invoice.vat_cents, invoice.content, invoice_pdf.render(invoice))
    vat_setting(later)
    invoice.refresh_from_db()
    assert (invoice.net_cents, invoice.vat_cents, invoice.content, invoice_pdf.render(invoice)) == before
    assert invoice.content["cross_border"]["vat_setting"] == at_issue


def test_a_ride_all_in_austria_prints_no_share_and_keeps_its_vat(abroad):
    vat_setting(cross_border.AUSTRIA_ONLY)
    invoice = Invoice.objects.get(booking=abroad(destination="Flughafen Wien", austria_share=None))
    assert invoice.content["cross_border"] is None
    assert (invoice.net_cents, invoice.vat_cents) == (6727, 673)
    assert "Share of the route" not in pdf_text(invoice)


def test_a_tour_as_directed_prints_its_share_without_kilometres(abroad):
    booking = abroad(destination="", distance_km=Decimal("0.0"), austria_share=Decimal("0.600"))
    text = pdf_text(Invoice.objects.get(booking=booking))
    assert "Share of the route in Austria: 60 %" in text and " km)" not in text


@given(
    gross_cents=st.integers(min_value=0, max_value=10_000_000),
    share_thousandths=st.integers(min_value=0, max_value=1000),
    rate=st.sampled_from([Decimal("0.10"), Decimal("0.20"), Decimal("0.13")]),
)
def test_the_split_adds_up_to_the_gross_to_the_cent(gross_cents, share_thousandths, rate):
    gross = Decimal(gross_cents) / 100
    parts = cross_border.split(gross, share=Decimal(share_thousandths) / 1000, vat_rate=rate)
    assert parts.net + parts.vat == gross
    assert (
        parts.austria_net + parts.vat == parts.austria_gross and parts.austria_gross + parts.abroad == gross
    )
    assert min(parts.austria_net, parts.vat, parts.abroad) >= 0
    assert all(
        part == part.quantize(Decimal("0.01")) for part in (parts.austria_net, parts.vat, parts.abroad)
    )


# --- a part of the ride's price: a credit note, a supplement, taxed as the ride was -------------------


def test_a_credit_note_of_a_split_invoice_splits_its_vat_the_same_way(abroad):
    vat_setting(cross_border.AUSTRIA_ONLY)
    booking = abroad()
    [refund] = refund_booking(booking.pk, 2000, reason="", actor="staff", manual=True)
    note = CreditNote.objects.get(refund=refund)
    # 20.00 × 0.62 = 12.40 in Austria: net 11.27 + VAT 1.13; 7.60 abroad without Austrian VAT
    assert (note.gross_cents, note.net_cents, note.vat_cents) == (2000, 1887, 113)
    text = pdf_text(note)
    for printed in (
        "Austrian share (62 %), net €11.27",
        "VAT 10 % €1.13",
        "Share abroad (38 %) €7.60",
        "not taxable in Austria (UStG §3a (10))",
        "Net amount €18.87",
        "Total credited €20.00",
    ):
        assert printed in text, printed


def test_a_supplement_of_a_split_ride_is_split_and_a_whole_one_is_not(abroad):
    vat_setting(cross_border.AUSTRIA_ONLY)
    split_booking = abroad()
    vat_setting(cross_border.WHOLE)
    whole_booking = abroad(reference="CB-WHOLE1")
    for booking in (split_booking, whole_booking):
        owed = surcharges.owe(booking, 1000, reason=Surcharge.Reason.WAITING, online=False, actor="staff")
        surcharges.collect(booking.pk, owed.pk, actor="staff")
    split, whole = (
        Invoice.objects.get(kind=Invoice.Kind.SUPPLEMENTARY, booking=b)
        for b in (split_booking, whole_booking)
    )
    assert (split.net_cents, split.vat_cents) == (944, 56)  # 6.20 in Austria: 5.64 + 0.56; 3.80 abroad
    assert (whole.net_cents, whole.vat_cents) == (909, 91)
    assert "Share abroad (38 %) €3.80" in pdf_text(split) and "Share abroad" not in pdf_text(whole)


def test_the_accountants_export_books_the_part_abroad_without_vat_on_its_own_account(abroad):
    vat_setting(cross_border.AUSTRIA_ONLY)
    booking = abroad()
    refund_booking(booking.pk, 2000, reason="", actor="staff", manual=True)
    today = timezone.localdate()
    entries = [
        entry
        for entry in accounting_export.entries(first=today, last=today)
        if entry.kind in (accounting_export.Kind.INVOICE, accounting_export.Kind.CREDIT_NOTE)
    ]
    lines = {
        (entry.kind, entry.contra): (entry.gross_cents, entry.vat_cents, entry.percent) for entry in entries
    }
    assert lines == {
        ("invoice", "4000"): (4588, -417, "10"),  # 74.00 × 0.62 with its VAT
        ("invoice", "4100"): (2812, 0, ""),  # the part abroad
        ("credit_note", "4000"): (-1240, 113, "10"),
        ("credit_note", "4100"): (-760, 0, ""),
    }
    invoice, note = Invoice.objects.get(booking=booking), CreditNote.objects.get()
    assert sum(entry.gross_cents for entry in entries) == invoice.gross_cents - note.gross_cents
    assert -sum(entry.vat_cents for entry in entries) == invoice.vat_cents - note.vat_cents
