"""The business customers' admin pages in a real Chromium, in English and German: the company
list with its open and overdue amounts, a company's page (bookings on account, collective invoices, API
tokens), the form's refusal of a booker that is neither an address nor a domain, the invoice list filtered
to what is overdue, the payment form refusing too much and then recording the payment, and the index's
overdue total. None may log a console error; axe-core may find no violation."""

import pytest

from tests.back_office import back_office
from tests.browser.conftest import ARTIFACTS, DESKTOP, skip_without_axe
from tests.browser.test_admin_pages import LANGUAGES, Visit, signed_in  # noqa: F401  (the fixture)
from tests.processes import manage

# A company per language with rides on account and its collective invoice, issued long ago: overdue.
COMPANIES = {"en": "Acme Handels GmbH", "de": "Bergbahn Reisen AG"}
SEED = """
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo
import time_machine
from booking.models import Booking
from corporate.models import CompanyAccount
from payments import collective_invoices
from access.models import ApiToken
vienna = ZoneInfo("Europe/Vienna")
template = Booking.objects.exclude(quote_record=None).first()
for number, name in enumerate(["Acme Handels GmbH", "Bergbahn Reisen AG"]):
    account = CompanyAccount.objects.create(
        name=name, street_address="Mariahilfer Straße 10", postcode="1070", city="Wien",
        vat_id="ATU99999999", billing_email=f"buchhaltung{number}@acme.example", bookers="@acme.example")
    ApiToken.objects.create(name=f"{name} travel desk", prefix=f"ch_acme{number}", digest=str(number) * 64,
                            company_account=account)
    for day in (5, 6):
        Booking.objects.create(
            reference=f"CB-ACME{number}{day}", origin="Hotel Sacher", destination="Flughafen Wien",
            vehicle_class=template.vehicle_class, quote_record=template.quote_record,
            amount_cents=template.amount_cents, booking_data={},
            status="completed", payment_method="account", company_account=account, name="Anna Berger",
            email="anna@acme.example", pickup_at=datetime(2025, 1, day, 9, 0, tzinfo=vienna))
    with time_machine.travel(datetime(2025, 2, 1, 8, 0, tzinfo=vienna), tick=False):
        invoice, created = collective_invoices.issue(account, date(2025, 1, 1))
    assert created
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with back_office(tmp_path_factory.mktemp("business_admin")) as running:
        done = manage("shell", "-c", SEED, **running.env)
        assert done.returncode == 0, done.stdout + done.stderr
        yield running


def company_pages(visit: Visit, company: str) -> None:
    page = visit.page
    visit.open("/admin/")
    assert page.locator("#overdue-total").inner_text().strip() != ""
    page.click("#overdue-link")
    page.wait_for_selector("#result_list")
    visit.check()
    assert page.locator("#result_list tbody tr", has_text=company).count() == 1
    visit.open("/admin/business/companyaccount/")
    page.locator("#result_list tbody tr a", has_text=company).click()
    page.wait_for_selector("#collective-invoices")
    visit.check()
    assert page.locator("#bookings-on-account tbody tr").count() == 2
    assert page.locator("#company-api-tokens li").count() == 1
    assert page.locator("#collective-invoices tr.invoice-overdue").count() == 1
    page.locator(".record-payment-link").first.click()
    page.wait_for_selector("#account-payment-form")
    visit.check()
    page.fill("#id_amount", "99999")
    page.fill("#id_received_on", "2025-02-20")
    page.click("#record-payment")
    page.wait_for_selector("#account-payment-form .errorlist")
    visit.check()
    open_amount = page.locator("#standing-open").inner_text()
    digits = "".join(character for character in open_amount if character.isdigit() or character in ",.")
    page.fill("#id_amount", digits.replace(".", ","))
    page.click("#record-payment")
    page.wait_for_selector("#collective-invoices tr.invoice-paid")
    visit.check()
    assert page.locator("#collective-invoices tr.invoice-overdue").count() == 0


def new_company(visit: Visit, company: str) -> None:
    page = visit.page
    visit.open("/admin/business/companyaccount/add/")
    for field, value in {
        "name": "Initech AG",
        "street_address": "Ring 2",
        "postcode": "1010",
        "city": "Wien",
        "billing_email": "ap@initech.example",
    }.items():
        page.fill(f"#id_{field}", value)
    page.fill("#id_bookers", "anna@initech.example\nnot an address")
    page.click("input[name=_save]")
    page.wait_for_selector(".errorlist")
    visit.check()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_business_pages_have_no_console_error_and_no_axe_violation(language, served, chromium, signed_in):  # noqa: F811
    for name, walk in (("company-pages", company_pages), ("new-company", new_company)):
        context = chromium.new_context(
            locale=LANGUAGES[language],
            viewport=DESKTOP,
            timezone_id="Europe/Vienna",
            storage_state=signed_in[language],
        )
        context.set_default_timeout(15_000)
        try:
            visit = Visit(context.new_page(), served.base)
            walk(visit, COMPANIES[language])
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            visit.page.screenshot(path=ARTIFACTS / f"admin-business-{name}-{language}.png", full_page=True)
            assert visit.page.locator("html").get_attribute("lang") == language
            assert visit.errors == []
            skip_without_axe()
            assert visit.violations == {}
        finally:
            context.close()
