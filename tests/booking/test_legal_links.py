"""The legal pages linked from every page footer (traveller pages, result pages, developers) and every
e-mail; the terms and cancellation terms before Pay; and what search engines read of the public pages."""

import re

import pytest
from django.core import mail

from booking import notifications
from booking.links import cancel_url, manage_url

pytestmark = pytest.mark.django_db

BASE = "https://chauffeur.test"


@pytest.fixture(autouse=True)
def public_address(settings):
    settings.PUBLIC_BASE_URL = BASE


# --- links: every page's footer and every e-mail -----------------------------------------------------


def footer_links(page: str) -> set[str]:
    footer = page[page.index('<footer class="cb-footer">') :]
    return set(re.findall(r'href="([^"]+)" id="footer-\w+"', footer))


def test_every_page_footer_links_the_legal_pages_in_its_language(client, make_booking, sandbox):
    booking = make_booking(provider_session_id="sbx_cs_9", locale="de", booking_data={"locale": "de"})
    german = {"/de/imprint", "/de/terms", "/de/privacy", "/de/accessibility"}
    pages = {
        "/de/": german,
        "/en/": {"/en/imprint", "/en/terms", "/en/privacy", "/en/accessibility"},
        "/de/terms": german,
        "/booking/success?session_id=sbx_cs_9": german,
        cancel_url(booking.reference).removeprefix(BASE): german,
        manage_url(booking.reference).removeprefix(BASE): german,
    }
    for path, links in pages.items():
        assert footer_links(client.get(path).content.decode()) == links, path
    assert footer_links(client.get("/developers", HTTP_ACCEPT_LANGUAGE="en").content.decode()) == {
        "/en/imprint",
        "/en/terms",
        "/en/privacy",
        "/en/accessibility",
    }


@pytest.mark.parametrize(
    ("locale", "terms"), [("de", "Allgemeine Geschäftsbedingungen"), ("en", "Terms and conditions")]
)
def test_every_mail_ends_with_absolute_legal_links(make_booking, locale, terms, settings):
    settings.OPERATOR_EMAIL = ""
    booking = make_booking(status="paid", email="anna@example.com", locale=locale)
    assert notifications.send_confirmation(booking.pk)
    notifications.send_payment_link(booking.pk, "https://pay.example/1", booking.quote.price)
    confirmation, payment_link = mail.outbox
    for message in (confirmation, payment_link):
        assert f"{terms}: {BASE}/{locale}/terms" in message.body
        assert f"{BASE}/{locale}/imprint" in message.body and f"{BASE}/{locale}/privacy" in message.body
    html = confirmation.alternatives[0][0]
    assert f'<a href="{BASE}/{locale}/terms" style="color: #555">{terms}</a>' in html
    assert f'href="{BASE}/{locale}/imprint"' in html and f'href="{BASE}/{locale}/privacy"' in html


def test_the_form_states_the_cancellation_terms_and_asks_for_consent_before_pay(client):
    page = client.get("/de/").content.decode()
    assert (
        "Stornierung: kostenlos bis 24 Stunden vor der Abholung, danach 50 % des Preises; ab der Abholzeit "
        "wird nichts erstattet." in page
    )
    assert re.search(r'<input id="cb-terms" name="terms" type="checkbox" required', page)
    assert '<a href="/de/terms" target="_blank" rel="noopener">' in page
    assert page.index('id="cb-terms"') < page.index('id="cb-pay"')
    embedded = client.get("/embed/form?lang=en").content.decode()
    assert f'<a href="{BASE}/en/terms" target="_blank" rel="noopener">' in embedded  # absolute off-site


# --- search engines ------------------------------------------------------------------------------------


def head_links(page: str) -> dict:
    head = page[: page.index("</head>")]
    return {
        "description": re.search(r'<meta name="description" content="([^"]+)">', head)[1],
        "canonical": re.findall(r'<link rel="canonical" href="([^"]+)">', head),
        "alternates": dict(re.findall(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">', head)),
        "noindex": '<meta name="robots" content="noindex">' in head,
    }


@pytest.mark.parametrize(
    ("path", "canonical", "alternates"),
    [
        ("/en/", f"{BASE}/en/", {"en": f"{BASE}/en/", "de": f"{BASE}/de/", "x-default": f"{BASE}/"}),
        ("/de/", f"{BASE}/de/", {"en": f"{BASE}/en/", "de": f"{BASE}/de/", "x-default": f"{BASE}/"}),
        (
            "/de/imprint",
            f"{BASE}/de/imprint",
            {"en": f"{BASE}/en/imprint", "de": f"{BASE}/de/imprint", "x-default": f"{BASE}/en/imprint"},
        ),
    ],
)
def test_public_pages_carry_a_description_and_absolute_canonical_and_hreflang_links(
    client, path, canonical, alternates
):
    links = head_links(client.get(path).content.decode())
    assert len(links["description"]) > 50
    assert links["canonical"] == [canonical]
    assert links["alternates"] == alternates
    assert not links["noindex"]


def test_the_german_description_is_german_and_private_pages_are_not_indexed(client, make_booking, sandbox):
    assert "Chauffeur in Wien" in head_links(client.get("/de/").content.decode())["description"]
    booking = make_booking()
    private = head_links(client.get(manage_url(booking.reference).removeprefix(BASE)).content.decode())
    assert private["noindex"] and private["canonical"] == [] and private["alternates"] == {}
