"""Every page a traveller sees, checked by axe-core (npm, pinned in tests/mcp_endpoint/node) in a real Chromium:
the booking page in German and English (desktop and phone), the legal pages, the sandbox's payment page,
the success, manage and cancel pages. No violation of WCAG 2.x A/AA or axe's best practices (the `axe`
fixture of conftest.py, as for the admin), and no console error. And the terms before Pay: without the
tick the form says so beside the box and sends nothing; with it the booking records the terms version."""

import re
import sqlite3

import pytest
import requests

from tests.browser.conftest import PHONE, pickup_day
from tests.browser.test_booking_page import fill_contact, fill_ride, latest_booking, text


def checkout(service, *, minutes: int) -> str:
    """A booking made as the page makes it (with the terms ticked): the sandbox's payment page."""
    api = service.base + "/api/v1"
    ride = {"from": "Hotel Sacher", "to": "Flughafen Wien"}
    route = requests.get(f"{api}/distance", params=ride, timeout=10).json()
    price = requests.get(
        f"{api}/price",
        params={"vehicleClass": "executive", "distanceKm": route["distance"], "inZoneA": "true"},
        timeout=10,
    ).json()
    body = {
        "amount": round(price["priceEur"] * 100),
        "termsAccepted": True,
        "bookingData": {
            **ride,
            "pickupDatetime": f"{pickup_day(4)}T10:{minutes:02d}",
            "vehicleClass": "executive",
            "name": "Anna Berger",
            "email": "anna@example.com",
            "phone": "+43 660 1234567",
            "locale": "de",
        },
    }
    response = requests.post(service.base + "/api/page/checkout", json=body, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()["url"]


@pytest.mark.parametrize(("path", "locale", "viewport"), [("/en/", "en-GB", PHONE), ("/de/", "de-DE", None)])
def test_the_booking_page_has_no_accessibility_violation(open_tab, service, axe, path, locale, viewport):
    tab = open_tab(locale=locale, **({"viewport": viewport} if viewport else {}))
    tab.page.goto(service.base + path)
    assert axe(tab.page) == []
    tab.page.click("#cb-pay")  # with every field's error shown
    tab.page.wait_for_selector("#cb-terms-error:not([hidden])")
    assert axe(tab.page) == []
    assert tab.problems == []


def test_the_legal_pages_have_no_accessibility_violation(open_tab, service, axe):
    tab = open_tab()
    for path in [
        "/en/imprint",
        "/de/imprint",
        "/en/terms",
        "/de/terms",
        "/en/privacy",
        "/de/privacy",
        "/en/accessibility",
        "/de/accessibility",
        "/developers",
    ]:
        tab.page.goto(service.base + path)
        assert axe(tab.page) == [], path
    assert tab.problems == []


def test_the_payment_success_manage_and_cancel_pages_have_no_accessibility_violation(open_tab, service, axe):
    tab = open_tab(locale="de-DE", viewport=PHONE)
    page = tab.page
    page.goto(checkout(service, minutes=5))
    assert axe(page) == [], "sandbox payment page"
    page.click("#pay")
    page.wait_for_url(re.compile(r"/booking/success\?session_id="))
    assert axe(page) == [], "success page"
    page.click("#manage")
    page.wait_for_url(re.compile(r"/booking/manage\?booking="))
    assert axe(page) == [], "manage page"
    page.goto(checkout(service, minutes=10))
    page.click("#cancel")
    page.wait_for_url(re.compile(r"/booking/cancel\?booking="))
    assert axe(page) == [], "cancel page"
    assert tab.problems == []


def test_pay_without_the_terms_ticked_says_so_and_sends_nothing(open_tab, service):
    tab = open_tab()
    page = tab.page
    sent = []
    page.on("request", lambda request: request.url.endswith("/api/page/checkout") and sent.append(request))
    page.goto(service.base + "/en/")
    assert "free until 24 hours before the pickup, then 50 % of the price" in text(page, "#cb-cancellation")
    fill_ride(page)
    fill_contact(page)
    page.uncheck("#cb-terms")
    before = latest_booking(service)
    page.click("#cb-pay")
    page.wait_for_selector("#cb-terms-error:not([hidden])")
    assert text(page, "#cb-terms-error") == "Tick the box to accept the terms and conditions."
    assert page.get_attribute("#cb-terms", "aria-invalid") == "true"
    assert page.evaluate("document.activeElement.id") == "cb-terms"
    assert sent == [] and latest_booking(service) == before
    page.check("#cb-terms")
    assert page.is_hidden("#cb-terms-error")  # ticking clears it
    page.click("#cb-pay")
    page.wait_for_url(re.compile(r"/booking/sandbox/"))
    with sqlite3.connect(service.database) as database:
        version, accepted_at = database.execute(
            "SELECT t.version, b.terms_accepted_at FROM booking_booking b "
            "JOIN company_legaltext t ON t.id = b.accepted_terms_id ORDER BY b.id DESC"
        ).fetchone()
    assert version == 1 and accepted_at
    assert tab.problems == []


def test_axe_does_find_a_violation(open_tab, service, axe):
    tab = open_tab()
    tab.page.goto(service.base + "/en/imprint")
    tab.page.evaluate(
        "document.querySelector('main').append(Object.assign(document.createElement('input'), {type: 'text'}))"
    )
    assert any(found.startswith("label ") for found in axe(tab.page))
