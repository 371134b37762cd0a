"""Booking on a company's account in a real Chromium, in German and English: the traveller chooses "On my
company's account", the page says to check the e-mail, and the mailed one-time link (signed as the worker
signs it for the booking the live server queued its mail for) confirms the booking; an address no account
allows gets the same answer, and no mail and no booking. Zero console errors throughout."""

import json
import sqlite3

import pytest
from django.test import override_settings

from booking import links
from booking.models import Booking
from tests.browser.conftest import SECRET_KEY
from tests.browser.test_booking_page import fill_contact, fill_ride, text


@pytest.fixture(scope="module")
def company(service) -> None:
    with sqlite3.connect(service.database) as database:
        database.execute(
            "INSERT INTO business_companyaccount (name, street_address, postcode, city, country, vat_id, "
            "billing_email, payment_terms_days, bookers, language, active, created_at) VALUES "
            "('Beispiel GmbH', 'Kärntner Straße 1', '1010', 'Wien', 'AT', 'ATU12345678', "
            "'buchhaltung@beispiel.at', 14, 'anna@example.com', 'de', 1, '2026-01-01 00:00:00')"
        )


def booking_row(service, reference: str) -> dict:
    with sqlite3.connect(service.database) as database:
        database.row_factory = sqlite3.Row
        row = database.execute(
            "SELECT status, payment_method, company_account_id, billing_address, (SELECT COALESCE(SUM("
            "share.amount_cents), 0) FROM payments_paymentshare share WHERE share.booking_id = booking_booking.id"
            ") AS received_cents FROM booking_booking WHERE reference = ?",
            (reference,),
        ).fetchone()
    return dict(row)


def mailed_link(service) -> tuple[str, str]:
    """The link and the booking reference of the newest account-link mail the live server queued: its job
    names the booking only, and the link is signed when the mail goes (as the worker would sign it)."""
    with sqlite3.connect(service.database) as database:
        (args_kwargs,) = database.execute(
            "SELECT args_kwargs FROM django_tasks_database_dbtaskresult "
            "WHERE task_path = 'booking.tasks.send_account_link' ORDER BY enqueued_at DESC"
        ).fetchone()
        (booking_id,) = json.loads(args_kwargs)["args"]
        reference, email = database.execute(
            "SELECT reference, email FROM booking_booking WHERE id = ?", (booking_id,)
        ).fetchone()
    with override_settings(SECRET_KEY=SECRET_KEY, PUBLIC_BASE_URL=service.base):
        url = links.account_link_url(Booking(pk=booking_id, reference=reference, email=email))
    return url, reference


def queued_links(service) -> int:
    with sqlite3.connect(service.database) as database:
        (count,) = database.execute(
            "SELECT COUNT(*) FROM django_tasks_database_dbtaskresult "
            "WHERE task_path = 'booking.tasks.send_account_link'"
        ).fetchone()
    return count


def ask_on_account(page, *, email: str | None = None) -> None:
    fill_ride(page)
    fill_contact(page)
    if email:
        page.fill("#cb-email", email)
    page.fill("#cb-billing", "Beispiel GmbH\nKärntner Straße 1\n1010 Wien")
    assert page.is_hidden("#cb-billing-hint")  # 74 € is far from the 400 € where the hint shows
    page.check("#cb-payment-account")
    page.click("#cb-pay")
    page.wait_for_selector("#cb-check-email:not([hidden])")


def test_a_booker_books_on_account_in_german(open_tab, service, company):
    tab = open_tab(locale="de-DE")
    page = tab.page
    page.goto(service.base + "/")
    ask_on_account(page)
    assert "anna@example.com" in text(page, "#cb-check-email") and "E-Mail" in text(page, "#cb-check-email")
    tab.screenshot("on-account-check-email-de")
    link, reference = mailed_link(service)
    assert booking_row(service, reference)["status"] == "pending_payment"
    page.goto(link)
    assert text(page, "h1") == "Bestätigen Sie Ihre Buchung auf Firmenrechnung"
    page.click("#confirm-account")
    page.wait_for_selector("#account-outcome")
    assert text(page, "h1") == "Auf Firmenrechnung gebucht"
    assert "Auf Rechnung von Beispiel GmbH; monatlich verrechnet." in text(page, "#account-outcome")
    tab.screenshot("on-account-confirmed-de")
    row = booking_row(service, reference)
    assert (row["status"], row["payment_method"], row["received_cents"]) == ("paid", "account", 0)
    assert row["company_account_id"] is not None and "Kärntner Straße 1" in row["billing_address"]
    page.goto(link)  # used: refused, nothing changes
    assert text(page, "h1") == "Dieser Link ist ungültig"
    assert booking_row(service, reference) == row
    assert tab.problems == []


def test_a_stranger_gets_the_same_answer_and_no_mail_in_english(open_tab, service, company):
    tab = open_tab(locale="en-GB")
    page = tab.page
    page.goto(service.base + "/")
    before = queued_links(service)
    ask_on_account(page, email="mallory@elsewhere.example")
    assert "Check your e-mail" in text(page, "#cb-check-email")  # the same answer as for a booker
    assert "Pay by card" in text(page, "#cb-check-email")
    tab.screenshot("on-account-check-email-en")
    assert queued_links(service) == before  # nothing mailed to a stranger's address
    with sqlite3.connect(service.database) as database:
        assert not database.execute(
            "SELECT 1 FROM booking_booking WHERE email = 'mallory@elsewhere.example'"
        ).fetchall()
    assert tab.problems == []


def test_above_400_euros_the_page_hints_at_a_billing_address(open_tab, service):
    tab = open_tab(locale="en-GB")
    page = tab.page
    page.goto(service.base + "/en/")
    page.check("input[name=kind][value=hourly]")
    page.select_option("#cb-hours", "6")
    fill_ride(page)
    page.check("input[name=vehicle][value=first]")  # 6 hours in the first class: 570 €
    page.wait_for_selector("#cb-billing-hint:not([hidden])")
    assert "400 €" in text(page, "#cb-billing-hint")
    tab.screenshot("billing-hint-en")
    page.fill("#cb-billing", "Beispiel GmbH, 1010 Wien")
    page.wait_for_selector("#cb-billing-hint", state="hidden")  # a hint, never a block
    assert page.is_enabled("#cb-pay")
    assert tab.problems == []
