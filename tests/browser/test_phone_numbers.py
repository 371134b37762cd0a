"""The booking page's phone in a real Chromium, in German on a phone and in English on a desktop: what is
no number, or a premium one, is refused beside the phone field and nothing is booked; texts asked for a
landline are refused beside the SMS box, naming the countries texted. Zero console errors."""

import sqlite3

from tests.browser.conftest import PHONE
from tests.browser.test_booking_page import fill_contact, fill_ride, text

# Chromium's own log line for a refusal the page then shows (what the server refuses is no console error)
REFUSED = "the server responded with a status of 400 (Bad Request) ("


def own_errors(tab) -> list[str]:
    return [line for line in tab.problems if not (REFUSED in line and "/api/page/checkout)" in line)]


def bookings(service) -> int:
    with sqlite3.connect(service.database) as database:
        (count,) = database.execute("SELECT COUNT(*) FROM booking_booking").fetchone()
    return count


def test_a_premium_number_is_refused_beside_the_phone_in_german(open_tab, service):
    tab = open_tab(locale="de-DE", viewport=PHONE)
    page = tab.page
    page.goto(service.base + "/de/")
    fill_ride(page)
    fill_contact(page)
    before = bookings(service)
    for typed in ("+43 930 123456", "+882 3421234", "<script>alert(1)</script>", "=1+2", "abc"):
        page.fill("#cb-phone", typed)
        page.click("#cb-pay")
        page.wait_for_selector("#cb-phone-error:not([hidden])")
        assert "Telefonnummer" in text(page, "#cb-phone-error")
        assert page.get_attribute("#cb-phone", "aria-invalid") == "true"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    tab.screenshot("phone-refused-de")
    assert bookings(service) == before and page.url.startswith(service.base + "/de/")
    assert len(tab.problems) == 2 and own_errors(tab) == []  # markup and letters never left the page


def test_texts_to_a_landline_are_refused_beside_the_box_in_english(open_tab, service):
    tab = open_tab(locale="en-GB")
    page = tab.page
    page.goto(service.base + "/en/")
    fill_ride(page)
    fill_contact(page)
    page.fill("#cb-phone", "01 234 5678")  # a Vienna landline: calls, no texts
    page.check("#cb-sms")
    before = bookings(service)
    page.click("#cb-pay")
    page.wait_for_selector("#cb-sms-error:not([hidden])")
    assert "mobile numbers in Austria, Germany" in text(page, "#cb-sms-error")
    tab.screenshot("sms-refused-en")
    assert bookings(service) == before
    page.uncheck("#cb-sms")
    page.click("#cb-pay")
    page.wait_for_url(service.base + "/booking/sandbox/**")  # without texts the landline is fine
    assert own_errors(tab) == []
