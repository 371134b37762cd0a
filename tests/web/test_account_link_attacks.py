"""Red-team checks of the booking page's way onto a company's account (booking/on_account.py): the mailed
link proves only the address it went to, and a booking that waited for such a link and is then paid
another way is an ordinary paid ride (money received, its own invoice)."""

import pytest

from booking.models import Booking, BookingStatus, PaymentMethod
from invoicing.models import Invoice
from payments import payment_updates
from tests.payments.ledger_rows import received_cents
from tests.web import test_account_link
from tests.web.test_account_link import book_on_account, mailed_link, token_of

company = test_account_link.company  # the fixture: a company whose bookers are "@beispiel.at"

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


def test_a_link_is_refused_once_the_address_changed(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks)
    token = token_of(mailed_link(mailoutbox, "anna@beispiel.at"))
    Booking.objects.update(email="bert@beispiel.at")  # changed after the link went out (e.g. by staff)
    before = Booking.objects.values().get()
    assert b'id="confirm-account"' not in client.get("/booking/account", {"token": token}).content
    assert client.post("/booking/account", {"token": token}).status_code == 400
    assert Booking.objects.values().get() == before  # Anna's mailbox does not vouch for Bert


def test_a_link_still_works_when_only_the_case_of_the_address_changed(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks)
    token = token_of(mailed_link(mailoutbox, "anna@beispiel.at"))
    Booking.objects.update(email="Anna@Beispiel.AT")
    assert client.post("/booking/account", {"token": token}).status_code == 200
    assert Booking.objects.get().company_account == company


def test_marking_a_booking_that_waited_for_its_link_paid_in_cash_invoices_it(
    client, company, mailoutbox, django_capture_on_commit_callbacks
):
    book_on_account(client, "anna@beispiel.at", django_capture_on_commit_callbacks)
    booking = Booking.objects.get()
    payment_updates.mark_paid(booking.pk, method="cash", user=None, actor="staff")
    booking.refresh_from_db()
    assert booking.status == BookingStatus.PAID and booking.payment_method == PaymentMethod.CASH
    assert received_cents(booking) == booking.amount_cents  # the cash is received, not left to a company
    assert Invoice.objects.get(booking=booking).gross_cents == booking.amount_cents
