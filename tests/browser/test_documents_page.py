"""The traveller's manage page with all of a booking's documents: paid on the sandbox's page
(the ride invoice), part of it given back by staff (a credit note); in German on a phone, in a real
Chromium: every document linked, each link a PDF, no console error, no accessibility violation."""

import re

import requests

from tests.browser.conftest import PHONE
from tests.browser.test_ride_day_traveller import on_the_service
from tests.browser.test_traveller_a11y import checkout


def test_the_manage_page_lists_the_invoice_and_the_credit_note(open_tab, service, axe):
    tab = open_tab(locale="de-DE", viewport=PHONE)
    page = tab.page
    page.goto(checkout(service, minutes=20))
    page.click("#pay")
    page.wait_for_url(re.compile(r"/booking/success\?session_id="))
    page.click("#manage")
    page.wait_for_url(re.compile(r"/booking/manage\?booking="))
    reference = page.url  # the signed link; the booking is the latest one
    said = on_the_service(
        service,
        """
        from booking.models import Booking
        from payments import refund_requests
        booking = Booking.objects.latest("pk")
        refund_requests.refund_once(
            booking.pk, 1000, key=refund_requests.new_key(), reason="Goodwill.", actor="eva (staff)", manual=True
        )
        print("number:", booking.credit_notes.get().number)
        """,
    )
    number = said.rsplit("number: ", 1)[1]
    page.goto(reference)
    assert page.inner_text("#invoice-title") == "Rechnungen und Gutschriften"
    link = page.locator("a.document-link")
    assert link.count() == 1 and link.first.inner_text() == f"Gutschrift {number} (PDF)"
    pdf = requests.get(service.base + link.first.get_attribute("href"), timeout=10)
    assert pdf.status_code == 200 and pdf.headers["Content-Type"] == "application/pdf"
    assert f'filename="Gutschrift-{number}.pdf"' in pdf.headers["Content-Disposition"]
    assert axe(page) == []
    assert tab.problems == []
