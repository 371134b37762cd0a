"""What a traveller entered comes back to them: the success and manage pages repeat every
choice and detail, an hourly hire without a destination reads "as directed" everywhere it is shown, and
the manage page puts the details first and the cancellation terms beside its Cancel button."""

import json
import re
from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.utils import timezone

from booking import links, notifications
from booking.models import Booking
from pricing.models import Tour
from pricing.money import to_cents
from pricing.services import TARIFFS, quote_price

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]
VIENNA = ZoneInfo("Europe/Vienna")


@pytest.fixture
def hire(make_booking):
    """A paid 3-hour hire without a destination, made on the German page, two days ahead."""

    def make(**fields) -> Booking:
        quote = quote_price(
            vehicle_class="executive",
            distance_km=Decimal("0"),
            booking_type="hourly",
            duration_hours=Decimal("3"),
        )
        values = {
            "destination": "",
            "booking_type": "hourly",
            "duration_hours": Decimal("3"),
            "distance_km": Decimal("0"),
            "duration_s": 0,
            "in_zone_a": True,
            "quote_record": quote.as_record(),
            "amount_cents": to_cents(quote.price),
            "status": "paid",
            "paid_at": timezone.now(),
            "received_cents": to_cents(quote.price),
            "pickup_at": datetime(2030, 5, 14, 9, 30, tzinfo=VIENNA),
            "provider_session_id": "sbx_cs_hire",
            "name": "Anna Berger",
            "email": "anna@example.com",
            "phone": "+43 660 1234567",
            "flight_number": "OS 123",
            "notes": "Please wait at gate B",
            "locale": "de",
            "booking_data": {"locale": "de"},
            "payment_intent_id": "sbx_pi_hire",
        }
        return make_booking(**{**values, **fields})

    return make


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def manage_path(booking: Booking) -> str:
    return links.manage_url(booking.reference).removeprefix("https://chauffeur.test")


def test_the_success_page_repeats_everything_the_traveller_entered_in_german(client, hire):
    hire()
    text = text_of(client.get("/booking/success", {"session_id": "sbx_cs_hire"}).content.decode())
    for shown in [
        "Hotel Sacher",
        "Nach Vereinbarung",
        "14. Mai 2030, 09:30",
        "Stundenweise: 3 Stunden",
        "OS 123",
        "Please wait at gate B",
        "Anna Berger",
        "+43 660 1234567",
        "anna@example.com",
        "195,00 €",
    ]:
        assert shown in text.replace("\xa0", " "), shown


def test_the_success_page_in_english_names_the_tour_and_its_hours(client, make_booking):
    quote = quote_price(vehicle_class="executive", distance_km=Decimal("2"), tour_slug="vienna-city-tour")
    make_booking(
        tour_slug="vienna-city-tour",
        tour_name="vienna-city-tour",
        destination="",
        status="paid",
        paid_at=timezone.now(),
        quote_record=quote.as_record(),
        amount_cents=to_cents(quote.price),
        provider_session_id="sbx_cs_tour",
        flight_number="",
        notes="",
        name="Ben",
    )
    text = text_of(
        client.get("/booking/success", {"session_id": "sbx_cs_tour", "lang": "en"}).content.decode()
    )
    assert "Tour: Vienna City Tour (3 hours)" in text and "As directed" in text and "Ben" in text
    assert "Flight number" not in text and "Notes for your chauffeur" not in text  # nothing entered, no row


def test_a_transfer_reads_as_a_transfer_with_its_destination(client, make_booking):
    make_booking(provider_session_id="sbx_cs_t")
    text = text_of(client.get("/booking/success", {"session_id": "sbx_cs_t", "lang": "en"}).content.decode())
    assert "Flughafen Wien" in text and "Transfer" in text and "As directed" not in text


def test_the_manage_page_shows_the_details_then_the_terms_beside_its_cancel(client, hire):
    booking = hire(pickup_at=timezone.now() + timedelta(days=3))
    html = client.get(manage_path(booking) + "&lang=en").content.decode()
    assert html.count("Your booking") == 2  # the title and the one heading; the details have their own
    assert html.count("<h1") == 1 and "<h2" in html
    order = [html.index(mark) for mark in ['id="details"', 'id="price"', 'id="terms"', 'id="cancel-booking"']]
    assert order == sorted(order), order
    free_until = timezone.localtime(booking.pickup_at - timedelta(hours=24))
    terms = text_of(html[html.index('id="terms"') :]).replace("\xa0", " ")
    assert f"Cancelling is free until {free_until.day} " in terms
    assert (
        "After that, 50 % of the price is kept until the pickup; from the pickup on, the whole price."
        in terms
    )
    assert "As directed" in text_of(html) and "OS 123" in html


def test_the_manage_page_states_the_terms_in_german(client, hire):
    booking = hire(pickup_at=timezone.now() + timedelta(days=3))
    text = text_of(client.get(manage_path(booking)).content.decode()).replace("\xa0", " ")
    assert "Kostenlos stornierbar bis" in text and "danach werden bis zur Abholung 50 % des Preises" in text
    assert "Ihre Buchung" in text and "Buchungsdetails" in text


def test_a_cancelled_booking_keeps_its_details_and_offers_no_cancel(hire):
    booking = hire(status="cancelled", cancelled_at=timezone.now(), cancellation_fee_cents=0)
    html = Client().get(manage_path(booking)).content.decode()
    assert 'id="cancel-booking"' not in html and 'id="cancelled"' in html and 'id="details"' in html


def test_the_confirmation_mail_says_as_directed_in_the_travellers_language(settings, hire):
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"
    booking = hire()
    Booking.objects.filter(pk=booking.pk).update(confirmation_sent_at=None)
    notifications.send_confirmation(booking.pk)
    customer = next(message for message in mail.outbox if message.to == ["anna@example.com"])
    assert "Nach: Nach Vereinbarung" in customer.body
    assert "Nach Vereinbarung" in customer.alternatives[0][0]


def test_staff_see_as_directed_on_the_booking_and_in_the_list(client, hire):
    booking = hire()
    user = User.objects.create_superuser("eva", password="pw")
    client.force_login(user)
    page = client.get(
        f"/admin/booking/booking/{booking.pk}/change/", HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "As directed" in page
    listing = client.get("/admin/booking/booking/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Hotel Sacher → As directed" in listing


# --- the form --------------------------------------------------------------------------------------


def config_of(html: str) -> dict:
    return json.loads(
        re.search(r'<script id="cb-config" type="application/json">(.*?)</script>', html, re.S)[1]
    )


@pytest.mark.parametrize(
    "path, about, one, other",
    [
        ("/en/", "3 hours · Three hours through Vienna", "{count} suggestion:", "{count} suggestions:"),
        ("/de/", "3 Stunden · Drei Stunden mit Ihrem Chauffeur", "{count} Vorschlag:", "{count} Vorschläge:"),
    ],
)
def test_the_form_shows_each_tours_hours_and_description_and_plural_texts(client, path, about, one, other):
    html = client.get(path).content.decode()
    assert about in text_of(html) and 'data-tour-about="wachau-valley" hidden' in html
    texts = config_of(html)["texts"]
    assert texts["suggestions"]["one"].startswith(one)
    assert texts["suggestions"]["other"].startswith(other)
    assert 'id="cb-to-hint"' in html and "cb-to-error cb-to-hint" in html  # "optional for hours and tours"


def test_the_embedded_form_adds_no_heading_to_the_host_page(client):
    html = client.get("/embed/form?lang=de").content.decode()
    assert not re.search(r"<h[1-6]", html)
    assert '<p id="cb-title" class="cb-title">Ihren Chauffeur buchen</p>' in html
    assert '<h1 id="cb-title"' in client.get("/de/").content.decode()  # the service's own page keeps it


def test_a_one_hour_tour_is_one_hour_in_both_languages(client):
    Tour.objects.filter(slug="vienna-city-tour").update(included_hours=Decimal("1"))
    TARIFFS.announce()
    english, german = client.get("/en/").content.decode(), client.get("/de/").content.decode()
    assert "Vienna City Tour (1 hour)" in english and "1 hour ·" in text_of(english)
    assert "Wiener Stadtrundfahrt (1 Stunde)" in german and "1 Stunde ·" in text_of(german)
    assert "Wachau Valley (8 hours)" in english and "Wachau (8 Stunden)" in german
