"""What the traveller owes, on "manage my booking": an amount still open after staff raised the price (or
after the ride) with its reason and its payment link; the booking's state in words a person uses, in both
languages (a ride on a company's account never reads "awaiting payment" or "paid"); the booking's details
before the ride panel. The payment link's e-mail says why it came."""

import re
from datetime import timedelta
from html import unescape

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from booking import links
from booking.models import Booking
from corporate.models import CompanyAccount
from dispatch import changes
from payments.models import Surcharge

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


@pytest.fixture
def browser():
    return Client()


def page(browser, booking: Booking, language: str = "en") -> str:
    path = links.manage_url(booking.reference).removeprefix("https://chauffeur.test")
    response = browser.get(f"{path}&lang={language}")
    assert response.status_code == 200
    return response.content.decode()


def text_of(html: str, element_id: str) -> str:
    found = re.search(rf'<(\w+)[^>]*\bid="{element_id}"[^>]*>(.*?)</\1>', html, re.S)
    assert found, element_id
    return re.sub(r"[ \t\n]+", " ", unescape(re.sub(r"<[^>]+>", " ", found[2]))).strip()


@pytest.fixture
def raised(make_booking, django_capture_on_commit_callbacks):
    """A ride paid 74 EUR online whose class staff raised to First: the difference asked by a payment link."""
    booking = make_booking(
        status="paid",
        paid_at=timezone.now(),
        payment_intent_id="sbx_pi_1",
        email="anna@example.com",
        pickup_at=(timezone.now() + timedelta(days=3)).replace(second=0, microsecond=0),
        distance_km="21.8",
    )
    with django_capture_on_commit_callbacks(execute=True):
        changes.change_ride(
            booking.pk, pickup=booking.pickup_at, vehicle_class="first", through_provider=True, actor="eva"
        )
    booking.refresh_from_db()
    return booking


def test_a_price_raised_by_staff_shows_what_is_still_to_pay_why_and_its_link(browser, raised):
    owed = Surcharge.objects.get()
    before, after = 7400, raised.amount_cents
    assert owed.amount_cents == after - before and owed.status == "pending"
    html = page(browser, raised)
    still = owed.amount_cents / 100
    assert text_of(html, "status") == f"Paid; €{still:.2f} still to pay"
    section = text_of(html, "owed")
    assert f"Price difference: €{still:.2f}" in section
    assert (
        f"Your ride was changed: its price went from €74.00 to €{after / 100:.2f}; €74.00 was paid."
        in section
    )
    assert f'href="{owed.payment_url}"' in html and f"Pay €{still:.2f} now" in section

    german = page(browser, raised, "de")
    amount = f"{still:.2f}".replace(".", ",") + "\xa0€"
    assert text_of(german, "status") == f"Bezahlt; noch {amount} zu bezahlen"
    assert f"Jetzt {amount} bezahlen" in text_of(german, "owed")
    assert "Ihr Preis änderte sich von 74,00\xa0€ auf" in text_of(german, "owed")


def test_the_payment_links_e_mail_says_why(raised):
    owed = Surcharge.objects.get()
    [message] = [message for message in mail.outbox if message.subject.startswith("Payment for")]
    assert owed.payment_url in message.body
    assert (
        f"Why: Your ride was changed: its price went from €74.00 to €{raised.amount_cents / 100:.2f}; "
        "€74.00 was paid." in message.body
    )


def test_once_paid_nothing_is_shown_as_open(browser, raised, client):
    owed = Surcharge.objects.get()
    client.post(f"/booking/sandbox/{owed.provider_session_id}", {"action": "pay"})
    html = page(browser, raised)
    assert Surcharge.objects.get().status == "paid"
    assert 'id="owed"' not in html and text_of(html, "status") == "Paid"


def test_waiting_owed_after_the_ride_says_the_minutes(browser, make_booking):
    booking = make_booking(status="completed", paid_at=timezone.now(), pickup_at=timezone.now())
    Surcharge.objects.create(
        booking=booking,
        amount_cents=1200,
        reason="waiting",
        payment_url="https://chauffeur.test/pay/1",
        details={"waited": 20, "included": 15, "beyond": 5},
    )
    section = text_of(page(browser, booking), "owed")
    assert "Waiting time: €12.00" in section
    assert "Your chauffeur waited 20 minutes; 15 are included in the price, 5 were beyond." in section
    assert text_of(page(browser, booking), "status") == "Ride completed; €12.00 still to pay"


@pytest.mark.parametrize(
    ("status", "english", "german"),
    [
        (
            "pending_payment",
            "Waiting for your confirmation: see the link we e-mailed you",
            "Wartet auf Ihre Bestätigung: Den Link dazu haben wir Ihnen per E-Mail gesendet",
        ),
        ("paid", "Booked on account, invoiced monthly", "Auf Firmenrechnung gebucht, monatlich verrechnet"),
        (
            "confirmed",
            "Confirmed, on account, invoiced monthly",
            "Bestätigt, auf Firmenrechnung, monatlich verrechnet",
        ),
    ],
)
def test_a_ride_on_account_never_reads_awaiting_payment_or_paid(
    browser, make_booking, status, english, german
):
    account = CompanyAccount.objects.create(
        name="Beispiel GmbH",
        street_address="Kärntner Straße 1",
        postcode="1010",
        city="Wien",
        vat_id="ATU12345678",
        billing_email="buchhaltung@beispiel.at",
        bookers="@beispiel.at",
    )
    booking = make_booking(
        status=status,
        payment_method="account",
        company_account=account,
        email="anna@beispiel.at",
        paid_at=None if status == "pending_payment" else timezone.now(),
        received_cents=0,
        pickup_at=timezone.now() + timedelta(days=2),
    )
    assert text_of(page(browser, booking), "status") == english
    assert text_of(page(browser, booking, "de"), "status") == german


@pytest.mark.parametrize(
    ("status", "english", "german"),
    [
        ("pending_payment", "Awaiting payment", "Zahlung ausstehend"),
        ("paid", "Paid", "Bezahlt"),
        ("confirmed", "Confirmed: your chauffeur is assigned", "Bestätigt: Ihr Chauffeur ist eingeteilt"),
        ("completed", "Ride completed", "Fahrt abgeschlossen"),
        ("cancelled", "Cancelled", "Storniert"),
        ("expired", "Not booked: payment not completed", "Nicht gebucht: Zahlung nicht abgeschlossen"),
        ("payment_failed", "Payment failed", "Zahlung fehlgeschlagen"),
    ],
)
def test_every_state_reads_as_words_in_both_languages(browser, make_booking, status, english, german):
    booking = make_booking(status=status, pickup_at=timezone.now() + timedelta(days=2))
    assert text_of(page(browser, booking), "status") == english
    assert text_of(page(browser, booking, "de"), "status") == german


def test_the_page_leads_with_the_bookings_details_then_the_ride(browser, make_booking):
    booking = make_booking(
        status="paid", paid_at=timezone.now(), pickup_at=timezone.now() + timedelta(days=2)
    )
    html = page(browser, booking)
    assert 'id="ride"' in html
    assert html.index('id="details"') < html.index('id="price"') < html.index('id="ride"')
