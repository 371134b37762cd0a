"""A fresh install's back office, whose operator profile lacks the seller's legal details: the home page says
so in red in both languages, the booking page says its invoice waits, and filling in the profile through its
link makes the warning go; no console error and no axe-core violation on the way."""

import pytest

from tests.back_office import PASSWORD, STAFF, back_office
from tests.browser.conftest import DESKTOP, skip_without_axe
from tests.browser.test_admin_pages import LANGUAGES, Visit

DETAILS = {
    "legal_name": "Wiener Chauffeur GmbH",
    "street_address": "Kärntner Ring 1",
    "postcode": "1010",
    "city": "Wien",
    "vat_id": "ATU12345678",
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with back_office(tmp_path_factory.mktemp("seller_details"), seller_details=False) as running:
        yield running


def signed_in_visit(chromium, served, language: str):
    context = chromium.new_context(locale=LANGUAGES[language], viewport=DESKTOP, timezone_id="Europe/Vienna")
    context.set_default_timeout(15_000)
    page = context.new_page()
    visit = Visit(page, served.base)
    page.goto(f"{served.base}/admin/login/")
    page.fill("#id_username", STAFF)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{served.base}/admin/")
    return context, visit


def test_the_missing_details_show_in_red_until_staff_fill_in_the_profile(served, chromium):
    german, visit = signed_in_visit(chromium, served, "de")
    try:
        visit.open("/admin/")
        warning = visit.page.locator("#seller-details-missing")
        assert "Es wird keine Rechnung ausgestellt" in warning.inner_text()
        assert "Firmenwortlaut, Straße und Hausnummer, Postleitzahl, UID-Nummer" in warning.inner_text()
        visit.open("/admin/booking/booking/?status__exact=paid")
        visit.page.locator("#result_list tbody tr a").first.click()
        visit.page.wait_for_selector("#documents-waiting")
        visit.check()
        assert visit.errors == []
    finally:
        german.close()
    english, visit = signed_in_visit(chromium, served, "en")
    try:
        visit.open("/admin/")
        warning = visit.page.locator("#seller-details-missing")
        assert warning.evaluate("element => getComputedStyle(element).color") == "rgb(186, 33, 33)"
        warning.locator("a").click()
        visit.page.wait_for_selector("#operatorprofile_form")
        visit.check()
        for field, value in DETAILS.items():
            visit.page.fill(f"#id_{field}", value)
        visit.page.click("input[name=_save]")
        visit.page.wait_for_load_state()
        visit.open("/admin/")
        assert visit.page.locator("#seller-details-missing").count() == 0
        assert visit.errors == []
        skip_without_axe()
        assert visit.violations == {}
    finally:
        english.close()
