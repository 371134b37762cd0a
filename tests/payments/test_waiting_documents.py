"""No invoice without the seller's legal details (UStG §11; docs/operations/invoices.md): while the operator
profile lacks its legal name, street, postcode, city or UID, the admin's home says so in red, `manage.py
check --deploy` fails, and paid bookings wait for their invoices (ride, supplementary, credit note,
collective) instead of getting deficient ones; saving a complete profile issues them through the job queue,
in the order they arose, and the worker's schedule catches up on anything left."""

import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
import time_machine
from django.core import mail
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.utils import timezone
from pypdf import PdfReader

from booking.models import Booking, PaymentMethod
from corporate.models import CompanyAccount
from dispatch import changes
from invoicing import invoice_pdf
from invoicing.models import CreditNote, Invoice
from operator_profile.models import PROFILE_ID, OperatorProfile
from payments import collective_invoices, document_balance, payment_updates, tasks
from pricing.quote import PriceByHand
from tests.conftest import SELLER_DETAILS
from tests.corporate.conftest import vienna
from tests.operator_profile.test_operator_profile import CHANGE, profile_form
from tests.queued import run_pending_jobs

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seeded_profile")]
STAFF = "eva (staff)"


@pytest.fixture
def paid_in_cash(make_booking, django_capture_on_commit_callbacks):
    """A ride four days ahead (74 EUR), marked paid in cash by staff: a payment that asks for its invoice."""

    def make(**fields) -> Booking:
        pickup = (timezone.localtime() + timedelta(days=4)).replace(
            hour=11, minute=0, second=0, microsecond=0
        )
        booking = make_booking(
            name="Anna Berger",
            email="anna@example.com",
            distance_km=Decimal("21.8"),
            duration_s=1455,
            in_zone_a=True,
            pickup_at=pickup,
            **fields,
        )
        with django_capture_on_commit_callbacks(execute=True):
            return payment_updates.mark_paid(booking.pk, method="cash", user=None, actor=STAFF)

    return make


def complete_the_profile(admin_client, django_capture_on_commit_callbacks) -> None:
    """Staff fill in the legal details; the job their save enqueues runs as the worker would."""
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(CHANGE, profile_form(name="Vienna Chauffeur", **SELLER_DETAILS))
    assert response.status_code == 302


def pdf_text(document) -> str:
    return "\n".join(
        page.extract_text() for page in PdfReader(io.BytesIO(invoice_pdf.render(document))).pages
    )


def deploy_check() -> str:
    """`manage.py check --deploy` of the operator's details: the error's text, or "" when it passes."""
    try:
        call_command("check", "--deploy", "--tag", "operator", stdout=io.StringIO(), stderr=io.StringIO())
    except SystemCheckError as refusal:
        return str(refusal)
    return ""


@pytest.mark.parametrize("missing", ["legal_name", "street_address", "postcode", "city", "vat_id"])
def test_each_missing_detail_is_named_in_red_on_the_admin_home_and_fails_the_deploy_check(
    admin_client, missing
):
    OperatorProfile.objects.filter(id=PROFILE_ID).update(**{**SELLER_DETAILS, missing: ""})
    label = str(OperatorProfile._meta.get_field(missing).verbose_name)
    home = admin_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    warning = home.split('id="seller-details-missing"', 1)[1].split("</div>", 1)[0]
    assert f"legal details every invoice must name: {label}." in warning
    assert f'href="/admin/company/operatorprofile/{PROFILE_ID}/change/"' in warning
    assert 'class="errornote"' in home.split('id="seller-details-missing"', 1)[0].rsplit("<div", 1)[1]
    said = deploy_check()
    assert "company.E001" in said and label in said and "UStG §11" in said


def test_a_complete_profile_shows_no_warning_and_passes_the_deploy_check(admin_client):
    OperatorProfile.objects.filter(id=PROFILE_ID).update(**SELLER_DETAILS)
    assert "seller-details-missing" not in admin_client.get("/admin/").content.decode()
    assert deploy_check() == ""


def test_the_german_admin_home_says_it_in_german(admin_client):
    home = admin_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Es wird keine Rechnung ausgestellt" in home and "Firmenwortlaut, Straße und Hausnummer" in home
    assert "Unternehmensprofil ausfüllen" in home


def test_a_paid_booking_waits_for_its_invoice_and_gets_it_once_the_profile_is_complete(
    paid_in_cash, admin_client, django_capture_on_commit_callbacks
):
    booking = paid_in_cash()
    assert not Invoice.objects.exists()
    booking.refresh_from_db()
    assert booking.documents_waiting_since is not None and booking.invoice_draft["gross"] == "74.00"
    confirmation = next(message for message in mail.outbox if message.to == ["anna@example.com"])
    assert not [
        name for name, *_ in confirmation.attachments if name.endswith(".pdf")
    ]  # no deficient invoice
    page = admin_client.get(f"/admin/booking/booking/{booking.pk}/change/", HTTP_ACCEPT_LANGUAGE="en")
    assert "for the seller's legal details in the operator profile" in page.content.decode()
    mail.outbox.clear()

    complete_the_profile(admin_client, django_capture_on_commit_callbacks)

    invoice = Invoice.objects.get()
    assert (invoice.booking, invoice.kind, invoice.gross_cents) == (booking, Invoice.Kind.RIDE, 7400)
    assert invoice.content["seller"]["name"] == "Wiener Chauffeur GmbH"
    assert invoice.content["seller"]["vat_id"] == "ATU12345678"
    text = pdf_text(invoice)
    assert "Kärntner Ring 1, 1010 Wien, Austria" in text and "VAT id (UID): ATU12345678" in text
    booking.refresh_from_db()
    assert booking.documents_waiting_since is None and booking.invoice_draft is None
    page = admin_client.get(f"/admin/booking/booking/{booking.pk}/change/").content.decode()
    assert 'id="documents-waiting"' not in page and invoice.number in page
    (sent,) = mail.outbox
    assert sent.to == ["anna@example.com"] and invoice.number in sent.body
    assert [name for name, *_ in sent.attachments] == [invoice.file_name]


def test_what_a_booking_owes_and_gets_back_meanwhile_waits_and_is_issued_in_order(
    paid_in_cash, admin_client, django_capture_on_commit_callbacks
):
    """Paid 74 EUR; staff raise it to first class (42 EUR collected by them), then back (42 EUR paid back by
    them): the ride invoice bills the 74 EUR paid, the supplementary invoice the 42, the credit note the 42
    returned, issued in that order once the details are complete."""
    booking = paid_in_cash()
    for vehicle_class in ("first", "executive"):
        with django_capture_on_commit_callbacks(execute=True):
            changes.change_ride(
                booking.pk,
                pickup=booking.pickup_at,
                vehicle_class=vehicle_class,
                through_provider=False,
                actor=STAFF,
            )
    assert not Invoice.objects.exists() and not CreditNote.objects.exists()

    complete_the_profile(admin_client, django_capture_on_commit_callbacks)

    ride, supplementary = Invoice.objects.order_by("sequence")
    assert (ride.kind, ride.gross_cents) == (Invoice.Kind.RIDE, 7400)  # as paid, not as changed since
    assert (supplementary.kind, supplementary.gross_cents) == (Invoice.Kind.SUPPLEMENTARY, 4200)
    assert supplementary.content["supplements"]["number"] == ride.number
    note = CreditNote.objects.get()
    assert (note.gross_cents, note.invoice) == (4200, ride)  # paid back by hand: the ride's invoice corrected
    assert note.content["seller"]["street_address"] == "Kärntner Ring 1"
    assert Booking.objects.get().documents_waiting_since is None


def test_the_schedule_issues_what_waits_once_the_details_are_complete(paid_in_cash):
    paid_in_cash()
    assert tasks.issue_waiting_documents.call() == []  # still incomplete: nothing is issued
    assert not Invoice.objects.exists()
    OperatorProfile.objects.filter(id=PROFILE_ID).update(**SELLER_DETAILS)  # e.g. by a data import
    (number,) = tasks.issue_waiting_documents.call()
    assert Invoice.objects.get().number == number
    assert tasks.issue_waiting_documents.call() == []  # issued once


def test_a_complete_profile_saved_with_nothing_waiting_issues_nothing(
    admin_client, django_capture_on_commit_callbacks
):
    complete_the_profile(admin_client, django_capture_on_commit_callbacks)
    assert not Invoice.objects.exists()


@time_machine.travel(vienna(2026, 12, 1, 0, 10), tick=False)
def test_a_collective_invoice_waits_and_is_issued_once_the_details_are_complete(
    make_booking, admin_client, django_capture_on_commit_callbacks
):
    acme = CompanyAccount.objects.create(
        name="Acme Handels GmbH",
        street_address="Mariahilfer Straße 10",
        postcode="1070",
        city="Wien",
        billing_email="ap@acme.example",
    )
    ride = make_booking(
        company_account=acme,
        payment_method=PaymentMethod.ACCOUNT,
        status="completed",
        pickup_at=vienna(2026, 11, 20, 9, 0),
        paid_at=vienna(2026, 11, 18, 9, 0),
        received_cents=0,
    )
    tasks.issue_collective_invoices.call()
    assert not Invoice.objects.exists()
    assert collective_invoices.issue(acme, date(2026, 11, 1)) == (None, False)
    assert Booking.objects.get(pk=ride.pk).documents_waiting_since is not None

    complete_the_profile(admin_client, django_capture_on_commit_callbacks)
    run_pending_jobs()  # its e-mail

    invoice = Invoice.objects.get()
    assert (invoice.kind, invoice.company_account, invoice.period_start) == (
        Invoice.Kind.COLLECTIVE,
        acme,
        date(2026, 11, 1),
    )
    assert invoice.content["seller"]["vat_id"] == "ATU12345678"
    assert Booking.objects.get(pk=ride.pk).documents_waiting_since is None
    assert [message.to for message in mail.outbox] == [["ap@acme.example"]]


def test_a_refund_while_the_details_are_missing_after_the_invoice_was_issued_gets_its_credit_note_later(
    paid_in_cash, admin_client, django_capture_on_commit_callbacks
):
    """An invoice issued while the profile was complete (or before an update asked for the details); a UID
    cleared since; staff lower the price by hand and pay 14 EUR back: its credit note waits, and is issued
    once the details are complete again, so the documents still add up to what was kept."""
    OperatorProfile.objects.filter(id=PROFILE_ID).update(**SELLER_DETAILS)
    booking = paid_in_cash()
    invoice = Invoice.objects.get()
    OperatorProfile.objects.filter(id=PROFILE_ID).update(vat_id="")
    with django_capture_on_commit_callbacks(execute=True):
        changes.change_ride(
            booking.pk,
            pickup=booking.pickup_at,
            vehicle_class=booking.vehicle_class,
            through_provider=False,
            actor=STAFF,
            price_by_hand=PriceByHand(Decimal("60.00"), "Agreed congress price"),
        )
    assert not CreditNote.objects.exists()

    complete_the_profile(admin_client, django_capture_on_commit_callbacks)

    note = CreditNote.objects.get()
    assert (note.invoice, note.gross_cents) == (invoice, 1400)
    assert note.content["seller"]["vat_id"] == "ATU12345678"
    booking.refresh_from_db()
    assert booking.documents_waiting_since is None and document_balance.balance(booking).adds_up


def test_supplementary_invoices_that_waited_print_the_reason_of_their_own_price_set_by_hand(
    paid_in_cash, admin_client, django_capture_on_commit_callbacks
):
    """Staff set the price by hand twice, each difference collected by them, while the details were missing:
    each supplementary invoice, issued later, names the reason of the price it was paid for, not the
    latest."""
    booking = paid_in_cash()
    for price, reason in (("116.00", "Agreed congress price"), ("130.00", "Luggage van")):
        with django_capture_on_commit_callbacks(execute=True):
            changes.change_ride(
                booking.pk,
                pickup=booking.pickup_at,
                vehicle_class=booking.vehicle_class,
                through_provider=False,
                actor=STAFF,
                price_by_hand=PriceByHand(Decimal(price), reason),
            )

    complete_the_profile(admin_client, django_capture_on_commit_callbacks)

    lines = [
        (invoice.gross_cents, [line["label"] for line in invoice.content["lines"]])
        for invoice in Invoice.objects.filter(kind=Invoice.Kind.SUPPLEMENTARY).order_by("sequence")
    ]
    assert lines == [
        (4200, ["Price difference after a change of the ride (price set by hand: Agreed congress price)"]),
        (1400, ["Price difference after a change of the ride (price set by hand: Luggage van)"]),
    ]


def test_credit_notes_that_waited_print_the_reason_of_their_own_price_set_by_hand(
    paid_in_cash, admin_client, django_capture_on_commit_callbacks
):
    """Staff lower the price by hand twice, each time paying the difference back, while the UID is missing:
    each credit note, issued later, names the reason of the price it gave money back for, not the latest."""
    OperatorProfile.objects.filter(id=PROFILE_ID).update(**SELLER_DETAILS)
    booking = paid_in_cash()
    OperatorProfile.objects.filter(id=PROFILE_ID).update(vat_id="")
    for price, reason in (("60.00", "Agreed congress price"), ("50.00", "Late by 40 minutes")):
        with django_capture_on_commit_callbacks(execute=True):
            changes.change_ride(
                booking.pk,
                pickup=booking.pickup_at,
                vehicle_class=booking.vehicle_class,
                through_provider=False,
                actor=STAFF,
                price_by_hand=PriceByHand(Decimal(price), reason),
            )
    assert not CreditNote.objects.exists()

    complete_the_profile(admin_client, django_capture_on_commit_callbacks)

    lines = [
        (note.gross_cents, [line["label"] for line in note.content["lines"]])
        for note in CreditNote.objects.order_by("sequence")
    ]
    assert [cents for cents, _ in lines] == [1400, 1000]
    assert "price set by hand: Agreed congress price" in lines[0][1][0]
    assert "price set by hand: Late by 40 minutes" in lines[1][1][0]
