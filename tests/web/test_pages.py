"""The web pages through Django's test client: the booking page's language (URL, Accept-Language), what it
offers, the form refilled after a cancel, the embeddable form, German formats on the result pages, and a
Content-Security-Policy without inline scripts on every HTML page."""

import json
import re
from datetime import datetime
from decimal import Decimal
from html.parser import HTMLParser
from zoneinfo import ZoneInfo

import pytest

from booking.links import booking_token, cancel_url, manage_url
from places.models import RatingReview, RatingSnapshot
from places.services import RATING_SNAPSHOT

pytestmark = pytest.mark.django_db

GERMAN_MOMENT = r"\d{1,2}\. (Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember) \d{4}, \d\d:\d\d"


def config(response) -> dict:
    return json.loads(
        re.search(
            r'<script id="cb-config" type="application/json">(.*?)</script>', response.content.decode(), re.S
        )[1]
    )


@pytest.mark.parametrize(
    ("accept", "language", "title"),
    [("de-AT,de;q=0.9,en;q=0.5", "de", "Ihren Chauffeur buchen"), ("fr-FR,fr", "en", "Book your chauffeur")],
)
def test_the_booking_page_at_the_root_speaks_the_browsers_language(client, accept, language, title):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=accept)
    assert response.status_code == 200
    page = response.content.decode()
    assert f'<html lang="{language}">' in page and title in page
    assert response["Content-Language"] == language
    assert "Accept-Language" in response["Vary"]


@pytest.mark.parametrize(("path", "language"), [("/de/", "de"), ("/en/", "en")])
def test_the_url_names_the_language_whatever_the_browser_says(client, path, language):
    other = "en" if language == "de" else "de"
    page = client.get(path, HTTP_ACCEPT_LANGUAGE=other).content.decode()
    assert f'<html lang="{language}">' in page
    assert f'<a href="/{language}/" hreflang="{language}" lang="{language}" aria-current="true">' in page


def test_the_page_offers_every_class_the_tours_and_the_earliest_pickup(client):
    page = client.get("/de/").content.decode()
    for name, passengers, luggage in [
        ("Executive Class", 3, 3),
        ("First Class", 3, 2),
        ("Business Van", 7, 7),
    ]:
        assert re.search(
            rf"{name}</span>\s*<span class=\"cb-card-meta\">{passengers} Fahrgäste · {luggage} Koffer", page
        )
    assert "Wachau" in page and "Stundenweise" in page
    assert re.search(rf"Früheste Abholung: {GERMAN_MOMENT} \(Wiener Zeit\)", page)
    settings = config(client.get("/de/"))
    assert settings["lang"] == "de" and settings["classes"] == ["executive", "first", "business-van"]
    assert settings["texts"]["lines"]["base_fare"] == "Grundpreis"
    assert settings["resume"] is None


def test_the_rating_is_shown_when_there_is_one(client):
    assert "cb-rating" not in client.get("/en/").content.decode()
    snapshot = RatingSnapshot.objects.create(rating=Decimal("4.9"), user_rating_count=312)
    RatingReview.objects.create(
        snapshot=snapshot,
        author_name="Anna K.",
        rating=5,
        text="Punctual and kind.",
        relative_time_description="2 weeks ago",
    )
    RATING_SNAPSHOT.bump()  # as the admin's save does: every process reads the snapshot again
    page = client.get("/de/").content.decode()
    assert "4,9 von 5 aus 312 Bewertungen" in page and "Punctual and kind." in page


def test_the_form_comes_back_filled_after_a_cancelled_payment(client, make_booking):
    pickup = datetime(2026, 12, 1, 10, 30, tzinfo=ZoneInfo("Europe/Vienna"))
    booking = make_booking(
        pickup_at=pickup,
        booking_type="hourly",
        duration_hours=Decimal("3.50"),
        name="Anna",
        email="anna@example.com",
        phone="+43 1",
        notes="Child seat",
        text_messages=True,
    )
    resumed = config(client.get(f"/en/?booking={booking_token(booking.reference)}"))["resume"]
    assert resumed == {
        "kind": "hourly",
        "from": "Hotel Sacher",
        "to": "Flughafen Wien",
        "date": "2026-12-01",
        "time": "10:30",
        "hours": "3.5",
        "tour": "",
        "vehicle": "executive",
        "name": "Anna",
        "email": "anna@example.com",
        "phone": "+43 1",
        "sms": True,
        "flight": "",
        "notes": "Child seat",
    }
    # A guessed or forged link fills nothing.
    assert config(client.get(f"/en/?booking={booking.reference}"))["resume"] is None
    assert config(client.get("/en/?booking=" + booking_token(booking.reference)[:-2]))["resume"] is None


def test_the_embeddable_form_carries_this_services_addresses(client, settings):
    settings.PUBLIC_BASE_URL = "https://chauffeur.example.com"
    response = client.get("/embed/form?lang=de", HTTP_ACCEPT_LANGUAGE="en")
    fragment = response.content.decode()
    assert response["Cache-Control"] == "private, no-store"
    assert fragment.startswith('\n<section class="cb" id="cb-booking" lang="de"') or 'lang="de"' in fragment
    assert "<html" not in fragment and "Ihren Chauffeur buchen" in fragment
    assert 'href="https://chauffeur.example.com/static/booking/booking.css"' in fragment
    assert 'href="https://chauffeur.example.com/company/brand.css?v=' in fragment
    assert 'data-cb-script="https://chauffeur.example.com/static/booking/booking.js"' in fragment


def test_the_developer_links_moved_to_their_own_page(client):
    page = client.get("/developers").content.decode()
    for link in ["/api/v1", "/api/docs", "/openapi.json", "/admin/", "/healthz"]:
        assert f'href="{link}"' in page
    assert "/static/booking/embed.js" in page
    assert 'href="/developers"' in client.get("/en/").content.decode()  # from every page's footer


def test_result_pages_use_german_formats_and_the_itemised_price(client, make_booking, sandbox):
    pickup = datetime(2026, 12, 1, 10, 0, tzinfo=ZoneInfo("Europe/Vienna"))
    booking = make_booking(
        pickup_at=pickup,
        distance_km=Decimal("21.8"),
        locale="de",
        booking_data={"locale": "de"},
        provider_session_id="sbx_cs_1",
    )
    page = client.get("/booking/sandbox/sbx_cs_1").content.decode()
    assert booking.reference in page
    assert "1. Dezember 2026, 10:00" in page and "74,00\xa0€ bezahlen" in page
    assert "Strecke 21,8 km" in page and "inkl. 10 % MwSt.: 6,73\xa0€ (netto 67,27\xa0€)" in page
    assert "Testzahlung (Sandbox)" in page  # the sandbox page's title is translated too
    assert "Test payment (sandbox)" in client.get("/booking/sandbox/sbx_cs_1?lang=en").content.decode()


def test_a_booking_page_follows_the_browser_when_the_booking_named_no_language(client, make_booking, sandbox):
    make_booking(provider_session_id="sbx_cs_2", booking_data={})  # an agent's booking, no locale sent
    page = client.get("/booking/sandbox/sbx_cs_2", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="de">' in page


class Scripts(HTMLParser):
    """Inline scripts and event-handler attributes: what a CSP without 'unsafe-inline' would block."""

    def __init__(self):
        super().__init__()
        self.inline, self.handlers, self._open = [], [], False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.handlers += [name for name in attributes if name.startswith("on")]
        self._open = (
            tag == "script" and "src" not in attributes and attributes.get("type") != "application/json"
        )

    def handle_data(self, data):
        if self._open and data.strip():
            self.inline.append(data.strip()[:80])

    def handle_endtag(self, tag):
        self._open = False


def test_every_html_page_has_a_csp_without_inline_scripts(client, make_booking, sandbox, admin_client):
    booking = make_booking(provider_session_id="sbx_cs_3")
    pages = [
        (client, "/"),
        (client, "/de/"),
        (client, "/en/"),
        (client, "/developers"),
        (client, "/embed/form"),
        (client, "/booking/sandbox/sbx_cs_3"),
        (client, "/booking/success?session_id=sbx_cs_3"),
        (client, cancel_url(booking.reference).removeprefix("https://chauffeur.test")),
        (client, "/api/docs"),
        (client, "/admin/login/"),
        (admin_client, "/admin/"),
        (admin_client, "/admin/company/operatorprofile/1/change/"),
        (client, "/no-such-page"),
        (client, manage_url(booking.reference).removeprefix("https://chauffeur.test")),
        (admin_client, "/admin/booking/booking/"),
        (admin_client, f"/admin/booking/booking/{booking.pk}/change/"),
        (admin_client, "/admin/booking/booking/dispatch/"),
        (admin_client, "/admin/booking/booking/add/"),
        (admin_client, "/admin/fleet/driver/"),
    ]
    for browser, path in pages:
        response = browser.get(path)
        assert response["Content-Type"].startswith("text/html"), path
        policy = dict(part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";"))
        assert policy["script-src"] == "'self'" and policy["default-src"] == "'self'", path
        assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'", path
        scripts = Scripts()
        scripts.feed(response.content.decode())
        assert (scripts.inline, scripts.handlers) == ([], []), path


def test_an_unknown_page_is_a_branded_404(client):
    response = client.get("/no-such-page", HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 404
    page = response.content.decode()
    assert "Seite nicht gefunden" in page and "Vienna Chauffeur" in page and 'href="/"' in page


@pytest.mark.parametrize(
    ("exact", "offered"),
    [("18:26:00", "18:30"), ("18:25:00", "18:25"), ("18:25:30", "18:30"), ("23:58:10", "00:00")],
)
def test_the_earliest_pickup_offered_is_rounded_up_never_down(exact, offered):
    from web.booking_page import rounded_up

    moment = datetime.fromisoformat(f"2026-12-01T{exact}+01:00")
    assert rounded_up(moment).strftime("%H:%M") == offered and rounded_up(moment) >= moment
