"""Invoices (docs/operations/invoices.md): issued in the payment's transaction with a gapless number
per calendar year in Vienna, an immutable snapshot, a PDF in the booking's language; attached to the
confirmation, linked from the manage page, listed in the admin and never changed."""

import io
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth.models import Permission, User
from django.core import mail
from django.db import connection, connections, transaction
from django.db.models import ProtectedError
from django.test import Client
from pypdf import PdfReader

from booking import links
from booking.models import Booking
from invoicing import invoice_pdf, invoices
from invoicing.models import Invoice, InvoiceYear, IssuedInvoiceError
from operator_profile.models import OperatorProfile
from payments import payment_updates
from tests.payments.stripe_events import deliver, event_payload, use_stripe

pytestmark = pytest.mark.django_db
VIENNA = ZoneInfo("Europe/Vienna")


@pytest.fixture(autouse=True)
def operator(db):
    OperatorProfile.objects.filter(id=1).update(
        legal_name="Wiener Chauffeur GmbH",
        street_address="Kärntner Ring 1",
        postcode="1010",
        city="Wien",
        vat_id="ATU12345678",
        company_register_number="FN 123456a",
        company_register_court="Handelsgericht Wien",
        email="office@chauffeur.test",
        phone="+43 1 234 56 78",
    )


@pytest.fixture
def pending(make_booking):
    def make(**fields) -> Booking:
        values = {
            "name": "Anna Berger",
            "email": "anna@example.com",
            "pickup_at": datetime(2026, 12, 2, 10, 0, tzinfo=VIENNA),
        }
        return make_booking(**{**values, **fields})

    return make


def pay(booking: Booking) -> Booking:
    return payment_updates.mark_paid(booking.pk, method="cash", user=None, actor="test")


def pdf_text(invoice: Invoice) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(invoice_pdf.render(invoice))).pages)


# --- the invoice and its PDF -------------------------------------------------------------------------------


@time_machine.travel(datetime(2026, 11, 24, 9, 0, tzinfo=VIENNA), tick=False)
def test_a_booking_paid_gets_an_english_invoice_with_everything_printed(pending):
    booking = pay(pending(reference="CB-INV001"))
    invoice = Invoice.objects.get()
    assert invoice.booking == booking and invoice.number == "2026-000001" and invoice.language == "en"
    assert (invoice.gross_cents, invoice.net_cents, invoice.vat_cents) == (7400, 6727, 673)
    text = pdf_text(invoice)
    for printed in (
        "Invoice 2026-000001",
        "Invoice date: Tue 24.11.2026",
        "Booking reference: CB-INV001",
        "Wiener Chauffeur GmbH",
        "Kärntner Ring 1, 1010 Wien, Austria",
        "VAT id (UID): ATU12345678",
        "Company register: FN 123456a, Handelsgericht Wien",
        "Anna Berger",
        "anna@example.com",
        "Transfer",
        "From Hotel Sacher to Flughafen Wien",
        "Date of service: Wed 02.12.2026, 10:00",
        "Base fare",
        "Distance 21.8 km",
        "Net amount €67.27",
        "VAT 10 % €6.73",
        "Total amount €74.00",
    ):
        assert printed in text, printed


@time_machine.travel(datetime(2026, 11, 24, 9, 0, tzinfo=VIENNA), tick=False)
def test_a_german_booking_gets_a_german_invoice(pending):
    pay(pending(reference="CB-INV002", locale="de"))
    invoice = Invoice.objects.get()
    text = pdf_text(invoice)
    assert invoice.language == "de"
    for printed in (
        "Rechnung 2026-000001",
        "Rechnungsdatum: Di., 24.11.2026",
        "Buchungsnummer: CB-INV002",
        "Wiener Chauffeur GmbH",
        "Kärntner Ring 1, 1010 Wien, Österreich",
        "UID-Nummer: ATU12345678",
        "Firmenbuch: FN 123456a, Handelsgericht Wien",
        "Anna Berger",
        "Transfer",
        "Von Hotel Sacher nach Flughafen Wien",
        "Leistungsdatum: Mi., 02.12.2026, 10:00",
        "Grundpreis",
        "Strecke 21,8 km",
        "Nettobetrag 67,27\xa0€",
        "USt 10 % 6,73\xa0€",
        "Gesamtbetrag 74,00\xa0€",
    ):
        assert printed in text, printed


def test_the_vat_rate_printed_is_the_quotes(pending):
    booking = pending()
    record = {**booking.quote_record, "vat_rate": "0.20", "net": "61.67", "vat": "12.33"}
    Booking.objects.filter(pk=booking.pk).update(quote_record=record)
    pay(booking)
    text = pdf_text(Invoice.objects.get())
    assert "VAT 20 % €12.33" in text and "Net amount €61.67" in text


def test_the_pdf_is_drawn_from_the_snapshot_alone(pending):
    pay(pending())
    invoice = Invoice.objects.get()
    first = invoice_pdf.render(invoice)
    OperatorProfile.objects.filter(id=1).update(legal_name="Someone Else KG", vat_id="ATU99999999")
    Booking.objects.update(name="Changed Name", origin="Elsewhere")
    again = Invoice.objects.get()
    assert invoice_pdf.render(again) == first  # the same bytes: nothing printed was read anew
    assert "Someone Else" not in pdf_text(again) and "Wiener Chauffeur GmbH" in pdf_text(again)


def test_letters_outside_the_fonts_lose_their_accents_or_become_question_marks(pending):
    pay(pending(name="Jiří Dvořák Łukasz"))
    assert "Jirí Dvorák ?ukasz" in pdf_text(Invoice.objects.get())


# --- numbering ---------------------------------------------------------------------------------------------


def test_numbers_are_consecutive_within_a_year_and_restart_in_the_next_vienna_year(pending):
    with time_machine.travel(datetime(2026, 12, 31, 22, 0, tzinfo=VIENNA), tick=False):
        pay(pending())
        pay(pending())
    # 00:10 on 1 January in Vienna is still 31 December in UTC: the year is Vienna's
    with time_machine.travel(datetime(2027, 1, 1, 0, 10, tzinfo=VIENNA), tick=False):
        pay(pending())
        pay(pending())
    numbers = list(Invoice.objects.order_by("pk").values_list("number", flat=True))
    assert numbers == ["2026-000001", "2026-000002", "2027-000001", "2027-000002"]
    assert dict(InvoiceYear.objects.values_list("year", "last_number")) == {2026: 2, 2027: 2}


def test_a_failed_payment_transaction_leaves_no_invoice_and_no_number_used(pending):
    booking = pending()
    with pytest.raises(RuntimeError), transaction.atomic():
        payment_updates.move_to_paid([Booking.objects.select_for_update().get(pk=booking.pk)], actor="test")
        assert Invoice.objects.count() == 1  # issued inside the transaction …
        raise RuntimeError("the payment's transaction fails after the invoice")
    assert Invoice.objects.count() == 0 and Booking.objects.get().status == "pending_payment"
    assert not InvoiceYear.objects.filter(last_number__gt=0).exists()
    pay(pending())
    assert list(Invoice.objects.values_list("sequence", flat=True)) == [1]  # … and its number given back


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_an_invoice_is_issued_only_inside_a_transaction(pending):
    booking = pending(status="paid")
    with pytest.raises(transaction.TransactionManagementError):
        invoices.issue(booking)
    assert Invoice.objects.count() == 0


def test_issuing_again_returns_the_invoice_the_booking_has(pending):
    booking = pay(pending())
    with transaction.atomic():
        again = invoices.issue(booking)
    assert again == Invoice.objects.get() and InvoiceYear.objects.get().last_number == 1


def test_a_replayed_payment_webhook_issues_one_invoice(settings, make_booking, client):
    use_stripe(settings)
    make_booking(
        email="anna@example.com",
        payment_provider="stripe",
        provider_session_id="cs_test_1",
        reference="CB-REPLAY1",
    )
    session = {
        "id": "cs_test_1",
        "object": "checkout.session",
        "status": "complete",
        "payment_status": "paid",
        "payment_intent": "pi_1",
        "amount_total": 7400,
        "currency": "eur",
        "metadata": {"reference": "CB-REPLAY1"},
    }
    for event_id in ("evt_1", "evt_1", "evt_2"):  # the same event replayed, and another saying the same
        assert (
            deliver(client, event_payload("checkout.session.completed", session, event_id)).status_code == 200
        )
    assert Booking.objects.get().status == "paid"
    assert list(Invoice.objects.values_list("number", flat=True)) == [f"{datetime.now(VIENNA).year}-000001"]


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_parallel_payments_get_consecutive_numbers_without_gap_or_duplicate(pending):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises its writers; the race is PostgreSQL's (CI's second run)")
    bookings = [pending() for _ in range(12)]

    def mark(pk):
        try:
            return payment_updates.mark_paid(pk, method="invoice", user=None, actor="test").status
        finally:
            connections.close_all()  # this thread's own connection, so the test database can be dropped

    with ThreadPoolExecutor(max_workers=12) as pool:
        assert list(pool.map(mark, [booking.pk for booking in bookings])) == ["paid"] * 12
    year = datetime.now(VIENNA).year
    assert sorted(Invoice.objects.values_list("sequence", flat=True)) == list(range(1, 13))
    assert sorted(Invoice.objects.values_list("number", flat=True)) == [
        f"{year}-{n:06d}" for n in range(1, 13)
    ]
    assert set(Invoice.objects.values_list("booking", flat=True)) == {booking.pk for booking in bookings}
    assert InvoiceYear.objects.get(year=year).last_number == 12


# --- never changed -----------------------------------------------------------------------------------------


def test_an_issued_invoice_refuses_to_be_changed_or_deleted(pending):
    pay(pending())
    invoice = Invoice.objects.get()
    invoice.gross_cents = 100
    with pytest.raises(IssuedInvoiceError):
        invoice.save()
    with pytest.raises(IssuedInvoiceError):
        invoice.delete()
    with pytest.raises(IssuedInvoiceError):
        Invoice.objects.filter(pk=invoice.pk).update(gross_cents=100)
    with pytest.raises(IssuedInvoiceError):
        Invoice.objects.all().delete()
    with pytest.raises(ProtectedError):
        invoice.booking.delete()  # its booking stays while the invoice does
    assert Invoice.objects.get().gross_cents == 7400 and Booking.objects.count() == 1


# --- surfaces ----------------------------------------------------------------------------------------------


def test_the_confirmation_mail_carries_the_invoice(
    pending, sandbox, settings, django_capture_on_commit_callbacks
):
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"
    with django_capture_on_commit_callbacks(execute=True):
        pay(pending(locale="de"))
    invoice = Invoice.objects.get()
    customer = next(message for message in mail.outbox if message.to == ["anna@example.com"])
    attached = {name: (content, kind) for name, content, kind in customer.attachments}
    content, kind = attached[f"Rechnung-{invoice.number}.pdf"]  # named in the booking's language
    assert kind == "application/pdf" and content == invoice_pdf.render(invoice)
    assert f"Ihre Rechnung {invoice.number} liegt bei (PDF)." in customer.body
    operator_copy = next(message for message in mail.outbox if message.to == ["dispatch@chauffeur.test"])
    assert operator_copy.attachments == [] and "invoice" not in operator_copy.body  # the customer's document
    assert "Rechnung " + invoice.number in "".join(
        page.extract_text() for page in PdfReader(io.BytesIO(content)).pages
    )


def test_the_manage_page_links_the_invoice_and_a_forged_link_is_404(pending, sandbox):
    booking = pay(pending())
    browser = Client()
    page = browser.get(links.manage_url(booking.reference).removeprefix("https://chauffeur.test"))
    link = re.search(r'id="invoice-link" href="([^"]+)"', page.content.decode())[1].replace("&amp;", "&")
    download = browser.get(link)
    assert download.status_code == 200 and download["Content-Type"] == "application/pdf"
    assert download.content == invoice_pdf.render(Invoice.objects.get())
    forged = link.replace(booking.reference, "CB-OTHER01")
    assert browser.get(forged).status_code == 404
    assert browser.get("/booking/manage/invoice.pdf?booking=nonsense").status_code == 404


def test_the_manage_page_of_an_unpaid_booking_has_no_invoice(pending, sandbox):
    booking = pending()
    browser = Client()
    page = browser.get(links.manage_url(booking.reference).removeprefix("https://chauffeur.test"))
    assert 'id="invoice-link"' not in page.content.decode()
    token = links.manage_url(booking.reference).split("booking=")[1]
    assert browser.get(f"/booking/manage/invoice.pdf?booking={token}").status_code == 404


@pytest.fixture
def accountant(db):
    user = User.objects.create_user("vera", password="pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=["view_booking", "view_invoice"]))
    client = Client()
    client.force_login(user)
    return client


def test_the_admin_lists_invoices_on_the_booking_page_and_in_their_own_list(pending, accountant):
    booking = pay(pending())
    invoice = Invoice.objects.get()
    pdf_url = f"/admin/invoicing/invoice/{invoice.pk}/pdf/"
    page = accountant.get(f"/admin/booking/booking/{booking.pk}/change/").content.decode()
    assert invoice.number in page and pdf_url in page
    listing = accountant.get("/admin/invoicing/invoice/").content.decode()
    assert invoice.number in listing and booking.reference in listing and "€74.00" in listing
    download = accountant.get(pdf_url)
    assert download.status_code == 200 and download.content == invoice_pdf.render(invoice)


def test_the_admin_refuses_to_add_change_or_delete_an_invoice(pending, admin_client):
    pay(pending())
    invoice = Invoice.objects.get()
    base = f"/admin/invoicing/invoice/{invoice.pk}"
    assert admin_client.get("/admin/invoicing/invoice/add/").status_code == 403
    assert admin_client.post(f"{base}/change/", {"number": "2026-999999"}).status_code == 403
    assert admin_client.post(f"{base}/delete/", {"post": "yes"}).status_code == 403
    assert 'name="number"' not in admin_client.get(f"{base}/change/").content.decode()  # shown read-only
    assert Invoice.objects.get().number == invoice.number


def test_staff_without_the_invoice_permission_cannot_download_it(pending, db):
    pay(pending())
    user = User.objects.create_user("otto", password="pw", is_staff=True)
    client = Client()
    client.force_login(user)
    assert client.get(f"/admin/invoicing/invoice/{Invoice.objects.get().pk}/pdf/").status_code == 403


@pytest.mark.parametrize("number", ["other", "\x00", "2026-", "%", "x" * 3000, "2026-000001 "])
def test_one_bookings_link_never_fetches_another_bookings_document(pending, sandbox, number):
    mine, theirs = pay(pending()), pay(pending(email="ben@example.com"))
    other = Invoice.objects.get(booking=theirs).number if number == "other" else number
    token = links.manage_url(mine.reference).split("booking=")[1]
    answer = Client().get("/booking/manage/invoice.pdf", {"booking": token, "number": other})
    assert answer.status_code == 404
