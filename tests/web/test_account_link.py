"""The booking page on a company's account (booking/on_account.py, web/views.py account_page): the page
answers the same for every address (no enumeration), the mailed one-time link confirms the booking when an
active account allows the address, and a forged, expired or used link changes nothing."""

import io
import re
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from pypdf import PdfReader

from booking import transitions
from booking.models import Booking, BookingStatus, PaymentMethod
from business.models import CompanyAccount
from payments import invoice_pdf
from payments.models import Invoice
from tests.booking.test_checkout import server_amount
from tests.web.test_page_checkout import page_ride, post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]
LINK = re.compile(r"https://chauffeur\.test/booking/account\?token=\S+")


@pytest.fixture
def company(db) -> CompanyAccount:
    return CompanyAccount.objects.create(
        name="Beispiel GmbH",
        street_address="Kärntner Straße 1",
        postcode="1010",
        city="Wien",
        vat_id="ATU12345678",
        billing_email="buchhaltung@beispiel.at",
        bookers="@beispiel.at",
    )


def book_on_account(client, email: str, capture, **ride):
    data = page_ride(email=email, **ride)
    with capture(execute=True):
        response = post(
            client, {"amount": server_amount(client, data), "bookingData": data, "paymentMethod": "account"}
        )
    assert response.status_code == 201, response.content
    return response


def mailed_link(mailoutbox, email: str) -> str:
    mail = next(message for message in mailoutbox if message.to == [email] and LINK.search(message.body))
    return LINK.search(mail.body)[0]


def token_of(link: str) -> str:
    return link.split("token=", 1)[1]


def test_the_page_answers_alike_for_a_booker_and_a_stranger(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    booker = book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks).json()
    stranger = book_on_account(client, "mallory@elsewhere.at", django_capture_on_commit_callbacks).json()
    for answer in (booker, stranger):
        assert answer["status"] == "pending_payment" and answer["url"] is None and answer["sessionId"] is None
        assert answer["paymentMethod"] == "account"
    assert set(booker) == set(stranger)
    assert [message.to for message in mailoutbox] == [["anna@beispiel.at"], ["mallory@elsewhere.at"]]
    for booking in Booking.objects.all():  # both wait for their link, on no account yet
        assert booking.status == BookingStatus.PENDING_PAYMENT and booking.company_account is None
        assert booking.payment_method == PaymentMethod.ACCOUNT and booking.provider_session_id is None


def test_the_link_confirms_the_booking_on_account(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks, locale="en")
    link = mailed_link(mailoutbox, "anna@beispiel.at")
    opened = client.get(link)
    assert opened.status_code == 200 and b'id="confirm-account"' in opened.content
    assert Booking.objects.get().status == BookingStatus.PENDING_PAYMENT  # opening alone books nothing
    with django_capture_on_commit_callbacks(execute=True):
        confirmed = client.post("/booking/account", {"token": token_of(link)})
    assert confirmed.status_code == 200
    assert "On account of Beispiel GmbH; invoiced monthly." in confirmed.content.decode()
    booking = Booking.objects.get()
    assert booking.status == BookingStatus.PAID and booking.company_account == company
    assert booking.received_cents == 0 and not Invoice.objects.exists()
    confirmation = mailoutbox[-1]
    assert "On account of Beispiel GmbH; invoiced monthly." in confirmation.body


def test_an_address_no_account_allows_is_offered_the_card(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    book_on_account(client, "mallory@elsewhere.at", django_capture_on_commit_callbacks, locale="en")
    answer = client.post(
        "/booking/account", {"token": token_of(mailed_link(mailoutbox, "mallory@elsewhere.at"))}
    )
    assert answer.status_code == 200 and b'id="resume"' in answer.content
    assert "Pay by card instead" in answer.content.decode()
    booking = Booking.objects.get()
    assert booking.status == BookingStatus.PENDING_PAYMENT and booking.company_account is None


def test_a_used_link_is_refused_changing_nothing(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks)
    token = token_of(mailed_link(mailoutbox, "anna@beispiel.at"))
    assert client.post("/booking/account", {"token": token}).status_code == 200
    before = Booking.objects.values().get()
    assert client.post("/booking/account", {"token": token}).status_code == 400
    opened = client.get("/booking/account", {"token": token})
    assert opened.status_code == 200 and b'id="confirm-account"' not in opened.content
    assert Booking.objects.values().get() == before


def test_a_forged_link_is_refused_changing_nothing(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks)
    token = token_of(mailed_link(mailoutbox, "anna@beispiel.at"))
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert b"confirm-account" not in client.get("/booking/account", {"token": forged}).content
    assert client.post("/booking/account", {"token": forged}).status_code == 400
    assert client.post("/booking/account", {"token": ""}).status_code == 400
    booking = Booking.objects.get()
    assert booking.status == BookingStatus.PENDING_PAYMENT and booking.company_account is None


def test_an_expired_link_is_refused_changing_nothing(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks)
    token = token_of(mailed_link(mailoutbox, "anna@beispiel.at"))
    with time_machine.travel(timezone.now() + timedelta(minutes=31)):
        assert client.post("/booking/account", {"token": token}).status_code == 400
    booking = Booking.objects.get()
    assert booking.status == BookingStatus.PENDING_PAYMENT and booking.company_account is None


def test_an_unconfirmed_booking_on_account_expires_like_an_unpaid_checkout(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    from payments.reconciliation import reconcile_pending

    book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks)
    token = token_of(mailed_link(mailoutbox, "anna@beispiel.at"))
    with time_machine.travel(timezone.now() + timedelta(minutes=31)):
        reconcile_pending(older_than=timedelta(minutes=30))
    assert Booking.objects.get().status == BookingStatus.EXPIRED
    assert client.post("/booking/account", {"token": token}).status_code == 400  # nothing left to confirm
    assert Booking.objects.get().status == BookingStatus.EXPIRED


def test_the_page_billing_address_reaches_the_invoice_pdf(client):
    data = page_ride(billingAddress="Beispiel GmbH\nKärntner Straße 1\n1010 Wien", billingVatId="ATU12345678")
    response = post(client, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 201, response.content
    booking = Booking.objects.get()
    transitions.move(booking.pk, BookingStatus.PAID, actor="test")
    invoice = Invoice.objects.get(booking=booking)
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(invoice_pdf.render(invoice))).pages)
    assert "Kärntner Straße 1" in text and "ATU12345678" in text
