"""Booking on a company's account in a real Chromium, in German and English: the traveller chooses "On my
company's account", the page says to check the e-mail, and the mailed one-time link (read from the job the
live server queued for the mail) confirms the booking; an address no account allows is offered the card.
Zero console errors throughout."""

import json
import sqlite3

import pytest

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
            "SELECT status, payment_method, company_account_id, received_cents, billing_address "
            "FROM booking_booking WHERE reference = ?",
            (reference,),
        ).fetchone()
    return dict(row)


def mailed_link(service) -> tuple[str, str]:
    """The link and the booking reference of the newest account-link mail the live server queued."""
    with sqlite3.connect(service.database) as database:
        args_kwargs, booking_id = None, None
        (args_kwargs,) = database.execute(
            "SELECT args_kwargs FROM django_tasks_database_dbtaskresult "
            "WHERE task_path = 'booking.tasks.send_account_link' ORDER BY enqueued_at DESC"
        ).fetchone()
        booking_id, url = json.loads(args_kwargs)["args"]
        (reference,) = database.execute(
            "SELECT reference FROM booking_booking WHERE id = ?", (booking_id,)
        ).fetchone()
    return url, reference


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


def test_a_stranger_is_offered_the_card_in_english(open_tab, service, company):
    tab = open_tab(locale="en-GB")
    page = tab.page
    page.goto(service.base + "/")
    ask_on_account(page, email="mallory@elsewhere.example")
    assert "Check your e-mail" in text(page, "#cb-check-email")  # the same answer as for a booker
    link, reference = mailed_link(service)
    page.goto(link)
    page.click("#confirm-account")
    page.wait_for_selector("#resume")
    assert text(page, "h1") == "This booking cannot go on a company's account"
    assert text(page, "#resume") == "Pay by card instead"
    tab.screenshot("on-account-refused-en")
    row = booking_row(service, reference)
    assert (row["status"], row["company_account_id"]) == ("pending_payment", None)
    page.click("#resume")  # the booking page again, filled in, to pay by card
    page.wait_for_selector("#cb-pay")
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
