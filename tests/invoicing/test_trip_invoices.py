"""A return trip's invoice: one payment, one invoice listing both rides (each with its service, route, lines
and total), the totals by VAT rate; each ride's credit notes and supplementary invoices correct or supplement
that ride's part of it; it waits with both rides while the seller's details are missing."""

from datetime import datetime
from decimal import Decimal

import pytest
import time_machine
from django.utils import timezone

from accounting import export as accounting_export
from booking.models import Booking
from invoicing import cross_border, documents, invoices
from invoicing.models import CreditNote, Invoice
from operator_profile.models import OperatorProfile
from payments import document_balance, surcharges, waiting_documents
from payments.models import Surcharge
from privacy import records
from tests.invoicing.test_invoices import VIENNA, operator, pay, pdf_text  # noqa: F401
from tests.payments.conftest import refund_booking

pytestmark = pytest.mark.django_db
FROZEN = datetime(2026, 11, 24, 9, 0, tzinfo=VIENNA)


@pytest.fixture
def trip(make_booking):
    """Hotel Sacher → the airport on 2 December, and back on the 9th: 74.00 EUR each, not yet paid."""

    def make(**way_back_fields) -> tuple[Booking, Booking]:
        traveller = {"name": "Anna Berger", "email": "anna@example.com"}
        way_out = make_booking(
            reference="CB-TRIPOUT", pickup_at=datetime(2026, 12, 2, 10, 0, tzinfo=VIENNA), **traveller
        )
        way_back = make_booking(
            **{
                "reference": "CB-TRIPBCK",
                "way_out": way_out,
                "origin": "Flughafen Wien",
                "destination": "Hotel Sacher",
                "pickup_at": datetime(2026, 12, 9, 18, 30, tzinfo=VIENNA),
                **traveller,
                **way_back_fields,
            }
        )
        return way_out, way_back

    return make


def paid(way_out: Booking, way_back: Booking) -> tuple[Booking, Booking]:
    pay(way_out)  # an unpaid trip is paid as a whole
    way_out.refresh_from_db()
    way_back.refresh_from_db()
    return way_out, way_back


def vat_setting(value: str) -> None:
    OperatorProfile.objects.filter(id=1).update(foreign_route_vat=value)


@time_machine.travel(FROZEN, tick=False)
def test_a_paid_return_trip_gets_one_invoice_listing_both_rides(trip):
    way_out, way_back = paid(*trip())

    invoice = Invoice.objects.get()
    assert (invoice.booking, invoice.kind, invoice.number) == (way_out, "ride", "2026-000001")
    assert (invoice.gross_cents, invoice.net_cents, invoice.vat_cents) == (14800, 13454, 1346)
    assert [part["reference"] for part in invoice.content["rides"]] == ["CB-TRIPOUT", "CB-TRIPBCK"]
    assert invoice.content["vat_rates"] == [
        {"rate": "0.100", "net": "134.54", "vat": "13.46", "gross": "148.00"}
    ]
    assert documents.for_booking(way_back) == invoice == documents.for_booking(way_out)
    assert documents.of_booking(way_back) == [invoice] == documents.of_booking(way_out)
    text = pdf_text(invoice)
    for printed in (
        "Invoice 2026-000001",
        "Booking references: CB-TRIPOUT, CB-TRIPBCK",
        "Way out: booking CB-TRIPOUT",
        "From Hotel Sacher to Flughafen Wien",
        "Date of service: Wed 02.12.2026, 10:00",
        "Way back: booking CB-TRIPBCK",
        "From Flughafen Wien to Hotel Sacher",
        "Date of service: Wed 09.12.2026, 18:30",
        "Total of this ride €74.00",
        "Net amount €134.54",
        "VAT 10 % €13.46",
        "Total amount €148.00",
    ):
        assert printed in text, printed
    assert text.count("Base fare") == 2
    for leg in (way_out, way_back):  # each ride's part of it against its share of the payment
        balance = document_balance.balance(leg)
        assert balance.adds_up and balance.invoiced_cents == leg.amount_cents, balance


@time_machine.travel(FROZEN, tick=False)
def test_the_trip_invoice_in_german(trip):
    way_out, way_back = trip()
    Booking.objects.filter(pk=way_out.pk).update(locale="de")
    paid(Booking.objects.get(pk=way_out.pk), way_back)
    text = pdf_text(Invoice.objects.get())
    for printed in (
        "Buchungsnummern: CB-TRIPOUT, CB-TRIPBCK",
        "Hinfahrt: Buchung CB-TRIPOUT",
        "Rückfahrt: Buchung CB-TRIPBCK",
        "Summe dieser Fahrt 74,00\xa0€",
    ):
        assert printed in text, printed


@time_machine.travel(FROZEN, tick=False)
def test_a_refund_of_one_ride_credits_its_part_of_the_trips_invoice(trip):
    way_out, way_back = paid(*trip())
    invoice = Invoice.objects.get()

    refund_booking(way_back.pk, 2000, reason="Late chauffeur.", actor="staff", manual=True)

    note = CreditNote.objects.get()
    assert (note.invoice, note.booking, note.gross_cents, note.vat_cents) == (invoice, way_back, 2000, 182)
    assert (note.content["reference"], note.content["origin"]) == ("CB-TRIPBCK", "Flughafen Wien")
    text = pdf_text(note)
    for printed in (
        "Corrects invoice 2026-000001 of Tue 24.11.2026",
        "Booking reference: CB-TRIPBCK",
        "From Flughafen Wien to Hotel Sacher",
        "Total credited €20.00",
    ):
        assert printed in text, printed
    assert documents.of_booking(way_back) == [invoice, note] and documents.of_booking(way_out) == [invoice]
    for leg in (way_out, way_back):
        assert document_balance.balance(leg).adds_up, leg


@time_machine.travel(FROZEN, tick=False)
def test_a_charge_on_one_ride_supplements_the_trips_invoice(trip):
    way_out, way_back = paid(*trip())
    owed = surcharges.owe(way_back, 1000, reason=Surcharge.Reason.WAITING, online=False, actor="staff")
    surcharges.collect(way_back.pk, owed.pk, actor="staff")

    supplement = Invoice.objects.get(kind=Invoice.Kind.SUPPLEMENTARY)
    assert (supplement.booking, supplement.gross_cents, supplement.vat_cents) == (way_back, 1000, 91)
    assert supplement.content["supplements"]["number"] == Invoice.objects.get(kind="ride").number
    assert "Booking reference: CB-TRIPBCK" in pdf_text(supplement)
    assert [document.kind for document in documents.of_booking(way_back)] == ["ride", "supplementary"]
    for leg in (way_out, way_back):
        assert document_balance.balance(leg).adds_up, leg


def test_a_trip_paid_while_the_sellers_details_are_missing_gets_its_one_invoice_later(trip):
    OperatorProfile.objects.filter(id=1).update(vat_id="")
    way_out, way_back = paid(*trip())
    refund_booking(way_back.pk, 2000, reason="Goodwill.", actor="staff", manual=True)

    assert not Invoice.objects.exists() and not CreditNote.objects.exists()
    assert [part["reference"] for part in way_out.invoice_draft["rides"]] == ["CB-TRIPOUT", "CB-TRIPBCK"]
    assert Booking.objects.filter(documents_waiting_since__isnull=False).count() == 2

    OperatorProfile.objects.filter(id=1).update(vat_id="ATU12345678")
    issued = waiting_documents.issue_waiting()

    invoice, note = Invoice.objects.get(), CreditNote.objects.get()
    assert issued == [invoice.number, note.number]  # the invoice first, then what corrects it
    assert (invoice.booking, invoice.gross_cents, note.invoice, note.booking) == (
        way_out,
        14800,
        invoice,
        way_back,
    )
    assert invoice.content["seller"]["vat_id"] == "ATU12345678"
    assert not Booking.objects.filter(documents_waiting_since__isnull=False).exists()
    for leg in (way_out, way_back):
        assert document_balance.balance(leg).adds_up, leg


@time_machine.travel(FROZEN, tick=False)
def test_a_way_back_partly_abroad_is_taxed_on_its_austrian_share_and_the_trip_totals_by_rate(trip):
    vat_setting(cross_border.AUSTRIA_ONLY)
    way_out, way_back = paid(
        *trip(
            destination="Bratislava Airport (BTS)",
            distance_km=Decimal("61.0"),
            austria_share=Decimal("0.620"),
        )
    )
    invoice = Invoice.objects.get()

    # the way out all in Austria (67.27 + 6.73), the way back 74.00 × 0.62 = 45.88 (41.71 + 4.17) + 28.12 abroad
    assert invoice.content["vat_rates"] == [
        {"rate": "0.100", "net": "108.98", "vat": "10.90", "gross": "119.88"},
        {"rate": "0", "net": "28.12", "vat": "0.00", "gross": "28.12"},
    ]
    assert (invoice.net_cents, invoice.vat_cents, invoice.gross_cents) == (13710, 1090, 14800)
    text = pdf_text(invoice)
    for printed in (
        "Share of the route in Austria: 62 % (38 of 61 km)",
        "Net amount at 10 % VAT €108.98",
        "VAT 10 % €10.90",
        "Net amount at 0 % VAT €28.12",
        "not taxable in Austria (UStG §3a (10))",
        "Net amount €137.10",
        "Total VAT €10.90",
        "Total amount €148.00",
    ):
        assert printed in text, printed

    refund_booking(way_back.pk, 2000, reason="", actor="staff", manual=True)
    note = CreditNote.objects.get()  # taxed as the way back was: 12.40 in Austria, 7.60 abroad
    assert (note.net_cents, note.vat_cents) == (1887, 113)
    for leg in (way_out, way_back):
        assert document_balance.balance(leg).adds_up, leg

    today = timezone.localdate()
    booked = [
        entry
        for entry in accounting_export.entries(first=today, last=today)
        if entry.kind == accounting_export.Kind.INVOICE
    ]
    by_account = {entry.contra: (entry.gross_cents, entry.vat_cents, entry.percent) for entry in booked}
    assert by_account == {"4000": (11988, -1090, "10"), "4100": (2812, 0, "")}


def test_a_way_back_waits_only_for_a_trip_draft_that_lists_it(trip):
    way_out, way_back = trip()
    assert not invoices.waits(way_back)
    Booking.objects.filter(pk=way_out.pk).update(invoice_draft={"reference": way_out.reference, "lines": []})
    assert not invoices.waits(way_back)  # the way out's own invoice waits, not one of both rides
    Booking.objects.filter(pk=way_out.pk).update(
        invoice_draft={"rides": [{"reference": way_out.reference}, {"reference": way_back.reference}]}
    )
    assert invoices.waits(way_back)


def test_a_way_back_stays_in_the_records_while_its_trips_invoice_is_kept(trip):
    OperatorProfile.objects.filter(id=1).update(vat_id="")
    with time_machine.travel(datetime(2018, 12, 31, 12, 0, tzinfo=VIENNA), tick=False):
        way_out, way_back = trip()
        Booking.objects.filter(pk__in=(way_out.pk, way_back.pk)).update(
            pickup_at=datetime(2018, 12, 31, 14, 0, tzinfo=VIENNA)
        )
        paid(way_out, way_back)  # paid in 2018, its invoice waits for the seller's details
    OperatorProfile.objects.filter(id=1).update(vat_id="ATU12345678")
    with time_machine.travel(datetime(2019, 1, 2, 9, 0, tzinfo=VIENNA), tick=False):
        waiting_documents.issue_waiting()  # issued in 2019: kept to the end of 2026
    assert Invoice.objects.get().issued_at.year == 2019

    seven_years_on = datetime(2026, 3, 1, tzinfo=VIENNA)
    assert not records.removable_bookings(seven_years_on, 7).exists()
    eight_years_on = datetime(2027, 3, 1, tzinfo=VIENNA)
    assert set(records.removable_bookings(eight_years_on, 7)) == {way_back}  # its way out after it


def test_staff_find_the_trips_invoice_by_either_rides_reference(trip, admin_client):
    paid(*trip())
    number = Invoice.objects.get().number
    for reference in ("CB-TRIPOUT", "CB-TRIPBCK"):
        found = admin_client.get("/admin/invoicing/invoice/", {"q": reference}).content.decode()
        assert f">{number}</a>" in found, reference
    assert (
        f">{number}</a>"
        not in admin_client.get("/admin/invoicing/invoice/", {"q": "CB-NOSUCH"}).content.decode()
    )
