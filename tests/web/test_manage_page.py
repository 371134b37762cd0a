"""The customer's "manage my booking" page: opened by the signed link of the success page and the
confirmation e-mail, it shows the state and offers the cancel where the policy allows it."""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from booking import links
from booking.models import Booking
from booking.notifications import send_confirmation
from payments.models import Refund

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


@pytest.fixture
def browser():
    return Client(enforce_csrf_checks=True)


@pytest.fixture
def paid(make_booking):
    def make(hours_ahead: float = 48, **fields) -> Booking:
        return make_booking(
            status="paid",
            paid_at=timezone.now(),
            pickup_at=timezone.now() + timedelta(hours=hours_ahead),
            payment_intent_id="sbx_pi_1",
            email="anna@example.com",
            **fields,
        )

    return make


def path_of(url: str) -> str:
    return url.removeprefix("https://chauffeur.test")


def test_the_page_shows_the_booking_and_a_free_cancel(browser, paid):
    booking = paid()
    page = browser.get(path_of(links.manage_url(booking.reference)))
    html = page.content.decode()
    assert page.status_code == 200 and booking.reference in html and "Hotel Sacher" in html
    assert 'id="cancel-booking"' in html and "Cancelling now is free; €74.00 will be refunded" in html


def test_cancelling_from_the_page_refunds_and_shows_it(browser, paid):
    booking = paid(hours_ahead=5, locale="de", booking_data={"locale": "de"})  # the customer chose German
    path = path_of(links.manage_url(booking.reference))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', browser.get(path).content.decode())[1]
    assert browser.post(path, {"action": "cancel"}).status_code == 403  # no CSRF token: nothing happens
    assert Booking.objects.get().status == "paid"
    page = browser.post(path, {"action": "cancel", "csrfmiddlewaretoken": token})
    html = page.content.decode()
    assert page.status_code == 200 and "Die Buchung ist storniert." in html
    assert "Stornogebühr: 37,00\xa0€" in html and 'id="cancel-booking"' not in html
    assert Booking.objects.get().status == "cancelled" and Refund.objects.get().amount_cents == 3700


def test_after_the_pickup_the_page_offers_no_cancel(browser, paid):
    booking = paid(hours_ahead=-1)
    html = browser.get(path_of(links.manage_url(booking.reference))).content.decode()
    assert 'id="cancel-booking"' not in html and "can no longer be cancelled online" in html


def test_a_guessed_or_tampered_link_shows_nothing(browser, paid):
    booking = paid()
    assert browser.get(f"/booking/manage?booking={booking.reference}").status_code == 404
    assert (
        browser.get(path_of(links.cancel_url(booking.reference)).replace("cancel", "manage")).status_code
        == 404
    )


def test_the_confirmation_email_and_the_success_page_link_to_it(browser, paid):
    booking = paid(provider_session_id="sbx_cs_1")
    send_confirmation(booking.pk)
    link = links.manage_url(booking.reference)
    assert link in mail.outbox[0].body and link in mail.outbox[0].alternatives[0][0]
    assert link in browser.get("/booking/success", {"session_id": "sbx_cs_1"}).content.decode()
