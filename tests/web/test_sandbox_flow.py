"""The sandbox payment flow end to end through the Django test client, as a traveller clicks through it."""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from booking.models import Booking, BookingStatus

# Real commits (the e-mail goes out on commit); serialized_rollback brings back the seeded tariffs.
pytestmark = [
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
    pytest.mark.usefixtures("jobs_after_commit"),  # the worker sends each commit's mails
]


@pytest.fixture(autouse=True)
def sandbox(sandbox, settings):
    """The shared sandbox, on the test client's own address so its redirects can be followed."""
    settings.PUBLIC_BASE_URL = "http://testserver"
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"


@pytest.fixture
def browser():
    return Client(enforce_csrf_checks=True)


def book(client, locale="en") -> dict:
    pickup = (timezone.localtime() + timedelta(days=2)).replace(hour=15, minute=0, second=0, microsecond=0)
    route = client.get("/api/v1/distance", {"from": "Hotel Imperial", "to": "Schönbrunn"}).json()
    price = client.get("/api/v1/price", {"vehicleClass": "first", "distanceKm": route["distance"]}).json()
    data = {
        "from": "Hotel Imperial",
        "to": "Schönbrunn",
        "pickupDatetime": pickup.isoformat(),
        "vehicleClass": "first",
        "email": "guest@example.com",
        "name": "Guest",
        "locale": locale,
    }
    response = client.post(
        "/api/create-checkout-session",
        {"amount": round(price["priceEur"] * 100), "bookingData": data},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_pay_in_the_sandbox_then_see_the_paid_booking(browser):
    session = book(browser)
    page = browser.get(session["url"].removeprefix("http://testserver"))
    assert page.status_code == 200
    html = page.content.decode()
    booking = Booking.objects.get()
    assert booking.reference in html and f"Pay €{booking.quote.price}" in html  # the itemised price beside it
    assert "Base fare" in html and "includes 10 % VAT" in html
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)[1]

    assert browser.post(page.request["PATH_INFO"], {"action": "pay"}).status_code == 403  # no CSRF token
    paid = browser.post(page.request["PATH_INFO"], {"action": "pay", "csrfmiddlewaretoken": token})
    assert paid.status_code == 302
    assert paid["Location"] == f"http://testserver/booking/success?session_id={session['sessionId']}"

    success = browser.get(f"/booking/success?session_id={session['sessionId']}")
    assert success.status_code == 200
    assert booking.reference in success.content.decode()
    assert "your booking is paid" in success.content.decode()
    assert "A confirmation is on its way to guest@example.com" in success.content.decode()
    assert Booking.objects.get().status == BookingStatus.PAID

    data = browser.get("/api/get-session-data", {"session_id": session["sessionId"]}).json()["bookingData"]
    assert (data["reference"], data["status"], data["paymentStatus"]) == (booking.reference, "paid", "paid")

    # Paying twice (a double click, a reload) changes nothing and sends nothing more.
    browser.post(page.request["PATH_INFO"], {"action": "pay", "csrfmiddlewaretoken": token})
    assert sorted(message.to[0] for message in mail.outbox) == [
        "dispatch@chauffeur.test",
        "guest@example.com",
    ]


def test_cancel_in_the_sandbox_closes_the_checkout_and_offers_the_filled_form(browser):
    session = book(browser, locale="de")
    path = session["url"].removeprefix("http://testserver")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', browser.get(path).content.decode())[1]
    cancelled = browser.post(path, {"action": "cancel", "csrfmiddlewaretoken": token})
    booking = Booking.objects.get()
    assert cancelled["Location"].startswith("http://testserver/booking/cancel?booking=")
    page = browser.get(cancelled["Location"].removeprefix("http://testserver")).content.decode()
    assert "Zahlung abgebrochen – es wurde nichts abgebucht" in page and booking.reference in page
    assert 'lang="de"' in page and "Nicht gebucht: Zahlung nicht abgeschlossen" in page
    resume = re.search(r'id="resume" href="(/de/\?booking=[^"]+)"', page)[1]
    assert Booking.objects.get().status == BookingStatus.EXPIRED  # nobody can pay it any more
    refilled = browser.get(resume.replace("&amp;", "&")).content.decode()
    assert '"from": "Hotel Imperial"' in refilled and '"email": "guest@example.com"' in refilled

    # The sandbox's page is closed, like Stripe's after an expiry: Pay is refused and nothing changes.
    assert 'id="pay"' not in browser.get(path).content.decode()
    refused = browser.post(path, {"action": "pay", "csrfmiddlewaretoken": token})
    assert refused.status_code == 409
    booking.refresh_from_db()
    assert (booking.status, booking.paid_at) == (BookingStatus.EXPIRED, None)
    assert mail.outbox == []


def test_a_cancel_link_opens_only_its_own_booking_and_knows_when_it_is_paid(client):
    from booking.links import cancel_url

    book(client)
    booking = Booking.objects.get()
    assert client.get(f"/booking/cancel?reference={booking.reference}").status_code == 404  # guessable: no
    link = cancel_url(booking.reference).removeprefix("http://testserver")
    assert "Payment cancelled – nothing was charged" in client.get(link).content.decode()
    # Paid after all (a late webhook): the link now says so, and nothing about a cancel.
    Booking.objects.filter(pk=booking.pk).update(status=BookingStatus.PAID, paid_at=timezone.now())
    page = client.get(link).content.decode()
    assert "This booking is already paid" in page and "nothing was charged" not in page


def test_pages_of_unknown_bookings_are_404(client):
    assert client.get("/booking/success?session_id=sbx_cs_nope").status_code == 404
    assert client.get("/booking/success").status_code == 404
    assert client.get("/booking/cancel?reference=CB-XXXXXX").status_code == 404
    assert client.get("/booking/cancel?booking=IkNCLVhYWFhYWCI:forged:signature").status_code == 404
    assert client.get("/booking/sandbox/sbx_cs_nope").status_code == 404
    assert client.get("/booking/success?session_id=%00").status_code == 404  # NUL: no database error
    assert client.get("/booking/sandbox/sbx_cs_%00").status_code == 404
    assert client.get("/booking/cancel?booking=%00").status_code == 404


def test_the_sandbox_is_never_active_with_another_provider(client, settings):
    session = book(client)
    settings.PAYMENT_PROVIDER = "stripe"
    settings.STRIPE_SECRET_KEY = "sk_test_123"
    page = session["url"].removeprefix("http://testserver")
    assert client.get(page).status_code == 404
    assert client.post(page, {"action": "pay"}).status_code == 404
    booking = Booking.objects.get()
    assert (booking.status, booking.paid_at) == (BookingStatus.PENDING_PAYMENT, None)
