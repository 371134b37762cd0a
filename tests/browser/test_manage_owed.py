"""The traveller's manage page after staff raised the price, in a real Chromium (phone and desktop, German and
English): the booking's details lead, its state says what is still to pay, and "Still to pay" gives the
amount, why and the payment link, which pays it on the sandbox's page and leaves nothing open. No console
error, axe-clean."""

import re

from tests.browser.conftest import PHONE
from tests.browser.test_ride_day_traveller import on_the_service
from tests.browser.test_traveller_a11y import checkout


def raise_to_first(service, reference: str) -> None:
    """Staff change the class to First (74 → 116 EUR): the difference is asked by a payment link."""
    on_the_service(
        service,
        f"""
        from booking.models import Booking
        from dispatch import changes
        booking = Booking.objects.get(reference="{reference}")
        changes.change_ride(booking.pk, pickup=booking.pickup_at, vehicle_class="first", through_provider=True,
                            actor="eva (staff)")
    """,
    )


def order_of(page, *ids: str) -> list[int]:
    """Where each element stands in the document (its index among all elements)."""
    return [
        page.evaluate(f"[...document.querySelectorAll('*')].indexOf(document.getElementById('{i}'))")
        for i in ids
    ]


def test_the_manage_page_shows_what_is_still_to_pay_and_the_link_pays_it(open_tab, service, axe):
    tab = open_tab(locale="de-DE", viewport=PHONE)
    page = tab.page
    page.goto(checkout(service, minutes=45))
    page.click("#pay")
    page.wait_for_url(re.compile(r"/booking/success\?session_id="))
    reference = page.locator("#reference").inner_text()
    raise_to_first(service, reference)
    page.click("#manage")
    page.wait_for_url(re.compile(r"/booking/manage\?booking="))

    details, price, owed, ride = order_of(page, "details", "price", "owed", "ride")
    assert details < price < owed < ride  # the booking's details lead, the ride panel follows
    total = page.locator("#amount").inner_text()
    assert (
        page.locator("#status").inner_text() == "Bezahlt; noch 42,00\xa0€ zu bezahlen" and "116,00" in total
    )
    section = page.locator("#owed")
    assert section.locator("h2").inner_text() == "Noch zu bezahlen"
    assert "Preisunterschied: 42,00\xa0€" in section.inner_text()
    assert (
        "Ihr Preis änderte sich von 74,00\xa0€ auf 116,00\xa0€; bezahlt waren 74,00\xa0€."
        in section.inner_text()
    )
    tab.screenshot("manage-owed-de-phone")
    assert axe(page) == []

    english = open_tab(locale="en-GB")
    english.page.goto(
        re.sub(r"lang=\w+", "lang=en", page.url) if "lang=" in page.url else page.url + "&lang=en"
    )
    shown = english.page.locator("#owed").inner_text()
    assert english.page.locator("#status").inner_text() == "Paid; €42.00 still to pay"
    assert "Price difference: €42.00" in shown and "its price went from €74.00 to €116.00" in shown
    english.screenshot("manage-owed-en-desktop")
    assert axe(english.page) == []

    page.click("#owed a.cb-owed-pay")  # the sandbox's payment page of the difference
    page.wait_for_url(re.compile(r"/booking/sandbox/"))
    assert "42,00" in page.content()
    page.click("button[value=pay]")
    page.wait_for_url(re.compile(r"/booking/manage\?booking="))
    assert page.locator("#owed").count() == 0 and page.locator("#status").inner_text() == "Bezahlt"
    assert tab.problems == [] and english.problems == []
