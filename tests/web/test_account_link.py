"""The booking page on a company's account (booking/on_account.py, web/views.py account_page): the page
answers the same for every address (no enumeration), only an address an active account allows is mailed
(strangers trigger no mail and nothing is stored), the mailed one-time link confirms the booking, and a
forged, expired or used link changes nothing."""

import io
import re
from datetime import timedelta

import pytest
import time_machine
from django.db import transaction
from django.utils import timezone
from pypdf import PdfReader

from booking import selectors
from booking.models import Booking, BookingStatus, PaymentMethod
from corporate.models import CompanyAccount
from invoicing import invoice_pdf
from invoicing.models import Invoice
from jobqueue.models import Job
from payments import payment_updates
from tests.booking.test_checkout import server_amount
from tests.payments.ledger_rows import received_cents
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
    assert response.status_code == 202, response.content
    return response


def mailed_link(mailoutbox, email: str) -> str:
    mail = next(message for message in mailoutbox if message.to == [email] and LINK.search(message.body))
    return LINK.search(mail.body)[0]


def token_of(link: str) -> str:
    return link.split("token=", 1)[1]


def test_the_page_answers_alike_for_a_booker_and_a_stranger(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    booker = book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks)
    stranger = book_on_account(client, "mallory@elsewhere.at", django_capture_on_commit_callbacks)
    assert booker.json() == stranger.json() == {"status": "check_email"}
    assert booker.headers.keys() == stranger.headers.keys()
    assert [message.to for message in mailoutbox] == [["anna@beispiel.at"]]  # the stranger's: none
    booking = Booking.objects.get()  # the booker's waits for its link, on no account yet
    assert booking.email == "anna@beispiel.at" and booking.company_account is None
    assert booking.status == BookingStatus.PENDING_PAYMENT and booking.payment_method == PaymentMethod.ACCOUNT


def test_an_inactive_account_mails_nobody(client, company, mailoutbox, django_capture_on_commit_callbacks):
    CompanyAccount.objects.update(active=False)
    book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks)
    assert not mailoutbox and not Booking.objects.exists() and not Job.objects.exists()


def test_sixty_requests_for_one_victim_in_a_minute_send_five_mails(
    client, company, mailoutbox, django_capture_on_commit_callbacks, settings
):
    # The red team's replay: 60 requests for one address in under a minute (the API's own limit per client
    # raised: they came from several addresses).
    assert settings.ANONYMOUS_MAILS_PER_RECIPIENT == 5
    settings.API_RATE_LIMIT_REQUESTS = 1000
    data = page_ride(email="victim@beispiel.at", locale="en")
    body = {"amount": server_amount(client, data), "bookingData": data, "paymentMethod": "account"}
    answers = set()
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(60):
            response = post(client, body)
            answers.add((response.status_code, response.content))
    assert answers == {(202, b'{"status":"check_email"}')}  # the sixth answers as the first did
    assert len(mailoutbox) == 5 and Booking.objects.count() == 5


def test_the_page_retrying_with_its_key_is_answered_alike_and_mails_anew_once_the_link_died(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    """The booking page sends the same Idempotency-Key for the same form: a retry while the mailed link lives
    is the first answer again (no second mail); once the link died, its booking expiring, a retry is a new
    request (a new link to a booker, still nothing to a stranger), never "check your e-mail" for a link
    that cannot come."""

    def book(email: str):
        data = page_ride(email=email, locale="en")
        body = {"amount": server_amount(client, data), "bookingData": data, "paymentMethod": "account"}
        with django_capture_on_commit_callbacks(execute=True):
            return post(client, body, HTTP_IDEMPOTENCY_KEY=f"page-{email}")

    answers = [book(email) for email in ("anna@beispiel.at", "mallory@elsewhere.at") for _ in range(2)]
    assert [(answer.status_code, answer.headers.get("Idempotent-Replayed")) for answer in answers] == [
        (202, None),
        (202, "true"),
        (202, None),
        (202, "true"),
    ]
    assert [message.to for message in mailoutbox] == [["anna@beispiel.at"]]
    with time_machine.travel(timezone.now() + timedelta(minutes=31)):
        later = [book(email) for email in ("anna@beispiel.at", "mallory@elsewhere.at")]
    assert {(answer.status_code, answer.content) for answer in later} == {(202, b'{"status":"check_email"}')}
    assert [answer.headers.get("Idempotent-Replayed") for answer in later] == [None, None]  # alike
    assert [message.to for message in mailoutbox] == [["anna@beispiel.at"]] * 2
    assert mailed_link(mailoutbox[1:], "anna@beispiel.at") != mailed_link(mailoutbox, "anna@beispiel.at")


def test_the_job_holds_the_booking_not_the_link(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        data = page_ride(email="anna@beispiel.at")
        post(client, {"amount": server_amount(client, data), "bookingData": data, "paymentMethod": "account"})
    job = Job.objects.get(task_path="booking.tasks.send_account_link")
    assert job.args_kwargs == {"args": [Booking.objects.get().pk], "kwargs": {}}
    assert "token" not in str(job.args_kwargs)


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
    assert received_cents(booking) == 0 and not Invoice.objects.exists()
    confirmation = mailoutbox[-1]
    assert "On account of Beispiel GmbH; invoiced monthly." in confirmation.body


def test_an_address_the_account_stopped_allowing_is_offered_the_card(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks, locale="en")
    CompanyAccount.objects.update(bookers="@other.example")  # changed after the link went out
    answer = client.post("/booking/account", {"token": token_of(mailed_link(mailoutbox, "anna@beispiel.at"))})
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
    with transaction.atomic():  # as a payment moves it: paid, with its invoice
        payment_updates.move_to_paid([selectors.locked_booking(booking.pk)], actor="test")
    invoice = Invoice.objects.get(booking=booking)
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(invoice_pdf.render(invoice))).pages)
    assert "Kärntner Straße 1" in text and "ATU12345678" in text
