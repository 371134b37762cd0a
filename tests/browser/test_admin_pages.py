"""Every admin page we own or extend, opened by a signed-in dispatcher in a real Chromium, in English and in
German: none may report a console error, an uncaught exception or a refusal of the Content-Security-Policy
(which allows no inline style or script), and axe-core may find no accessibility violation on it. Beyond
those, every registered model's list and add page (date and time pickers opened) reports no console error. The pages
with the admin's date and time pickers open them; the forms are sent once with a mistake, so their error
states are checked too. The back office runs as in tests/back_office.py: the demo working day."""

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from tests.back_office import PASSWORD, STAFF, back_office
from tests.browser.conftest import (
    ARTIFACTS,
    DESKTOP,
    axe_missing,
    axe_violations,
    skip_without_axe,
    watch_console,
)

LANGUAGES = {"en": "en-GB", "de": "de-AT"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with back_office(tmp_path_factory.mktemp("admin_pages")) as running:
        yield running


@pytest.fixture(scope="module")
def signed_in(served, chromium) -> dict[str, dict]:
    """A dispatcher's signed-in browser state per language, the language taken from Accept-Language."""
    states = {}
    for language, locale in LANGUAGES.items():
        context = chromium.new_context(locale=locale, viewport=DESKTOP, timezone_id="Europe/Vienna")
        page = context.new_page()
        page.goto(f"{served.base}/admin/login/")
        page.fill("#id_username", STAFF)
        page.fill("#id_password", PASSWORD)
        page.click("input[type=submit]")
        page.wait_for_url(f"{served.base}/admin/")
        states[language] = context.storage_state()
        context.close()
    return states


# One signed-in tab per language and colour scheme for the module, which its tests walk on from page to page
# as staff do: a tab or a context of its own per test costs Chromium a fresh renderer (and axe-core's
# compiling) for every test, more than the pages themselves.
@pytest.fixture(scope="module")
def tabs(chromium, signed_in, served) -> Iterator[Callable[..., "Visit"]]:
    contexts = []
    opened: dict[tuple[str, str], Visit] = {}

    def tab(language: str, color_scheme: str = "light") -> Visit:
        if (language, color_scheme) not in opened:
            context = signed_in_context(chromium, signed_in, language, color_scheme)
            contexts.append(context)
            opened[language, color_scheme] = Visit(context.new_page(), served.base)
        return opened[language, color_scheme].anew()

    yield tab
    for context in contexts:
        context.close()


def signed_in_context(chromium, signed_in, language: str, color_scheme: str = "light"):
    context = chromium.new_context(
        locale=LANGUAGES[language],
        viewport=DESKTOP,
        timezone_id="Europe/Vienna",
        storage_state=signed_in[language],
        color_scheme=color_scheme,
    )
    context.set_default_timeout(15_000)
    return context


class Visit:
    """One walk through admin pages: what the console said all along, and axe-core's findings per page."""

    def __init__(self, page, base: str):
        self.page, self.base = page, base
        self.errors = watch_console(page)
        self.violations: dict[str, list[str]] = {}

    def anew(self) -> "Visit":
        """The same tab for the next test, with nothing reported yet."""
        self.errors.clear()
        self.violations.clear()
        return self

    def open(self, path: str) -> None:
        response = self.page.goto(self.base + path)
        assert response.status == 200, f"{path}: {response.status}"
        self.check()

    def open_first_row(self, path: str) -> None:
        """The change page of the first row of a list."""
        self.open(path)
        self.page.locator("#result_list tbody tr").first.locator("a").first.click()
        self.page.wait_for_load_state()
        assert re.search(r"/\d+/change/$", self.page.url), self.page.url
        self.check()

    def check(self) -> None:
        self.page.wait_for_load_state("load")
        if axe_missing():  # the console is still watched; the test says it skipped axe-core at its end
            return
        found = axe_violations(self.page)
        if found:
            self.violations[self.page.url.removeprefix(self.base)] = found

    def open_calendar(self, form: str) -> None:
        """The admin's calendar and clock beside the pickup in `form` open, and a chosen day lands in the field."""
        page = self.page
        page.click(f"{form} .datetimeshortcuts a:has(.date-icon)")
        calendar = page.locator(".calendarbox").first
        assert calendar.is_visible()
        calendar.locator(".calendarnav-next").click()  # next month's 15th: ahead of any lead time, any day
        calendar.locator("td:not(.nonday) a", has_text=re.compile(r"^15$")).click()
        assert not calendar.is_visible()
        assert re.fullmatch(r"15\.\d\d\.\d{4}", page.input_value(f"{form} .vDateField"))
        page.click(f"{form} .datetimeshortcuts a:has(.clock-icon)")
        clock = page.locator(".clockbox").first
        assert clock.is_visible()
        clock.locator("ul.timelist a").nth(3).click()  # noon
        assert page.input_value(f"{form} .vTimeField").startswith("12:00")  # German adds the seconds


def booking_page(visit: Visit) -> None:
    """The page of a paid ride nobody drives yet: every action form is on it."""
    visit.open("/admin/booking/booking/dispatch/?range=next7")
    visit.page.locator("tr.unassigned a.ride.needs-driver").first.click()
    visit.page.wait_for_selector("#assign-form")
    visit.check()


def ride_day(visit: Visit) -> None:
    """The page of a ride a driver has: the ride's day with its steps and the job link to revoke."""
    visit.open("/admin/booking/booking/dispatch/?range=next7")
    visit.page.locator("tr:not(.unassigned) a.ride").first.click()
    visit.page.wait_for_selector("#ride-day #ride-steps")
    visit.check()


def phone_booking(visit: Visit) -> None:
    visit.open("/admin/booking/booking/add/")
    page = visit.page
    visit.open_calendar("#phone-booking")
    for field, value in {
        "origin": "Hotel Sacher",
        "destination": "Flughafen Wien",
        "name": "Anna Berger",
        "phone": "+43 660 1234567",
    }.items():
        page.fill(f"#id_{field}", value)
    page.click("#quote-button")
    page.wait_for_selector("#quote")
    visit.check()
    page.fill("#phone-booking .vDateField", "01.01.2020")  # long past: the form says so
    page.click("#quote-button")
    page.wait_for_selector("#phone-booking .errornote, #phone-booking .errorlist")
    visit.check()


def change_ride(visit: Visit) -> None:
    booking_page(visit)
    visit.open_calendar("#change-form")
    visit.page.fill("#change-form .vDateField", "01.01.2020")  # long past: refused, nothing changes
    visit.page.click("#change-ride")
    visit.page.wait_for_selector(".messagelist .error")
    visit.check()


def price_by_hand(visit: Visit) -> None:
    """The change form with a price set by hand and its reason, settled by staff: the page's price lines and
    history show the reason; short notice and a past ride are offered beside it."""
    booking_page(visit)
    page = visit.page
    assert page.locator("#change-form input[name=short_notice]").count() == 1
    assert page.locator("#change-form input[name=past_ride]").count() == 1
    page.fill("#change-form input[name=price]", "60,00")
    page.fill("#change-form input[name=price_reason]", "Corrected: waited at the hotel")
    page.check('#change-form input[name=through_provider][value=""]')
    page.click("#change-ride")
    page.wait_for_selector(".messagelist .success")
    visit.check()
    assert "Corrected: waited at the hotel" in page.locator("#content").inner_text()


def job_page(visit: Visit) -> None:
    """A job's page (demo_data's bookings queued their e-mails; no worker runs here): ids are UUIDs."""
    visit.open("/admin/jobs/job/")
    visit.page.locator("#result_list tbody tr").first.locator("a").first.click()
    visit.page.wait_for_load_state()
    assert re.search(r"/jobs/job/[0-9a-f-]{36}/change/$", visit.page.url), visit.page.url
    visit.check()


def refund(visit: Visit) -> None:
    """The booking page's refund form leads to the refund page: a mistake, the confirmation step, and the
    service's refusal of more than was received (no money moves)."""
    booking_page(visit)
    page = visit.page
    page.fill("#refund-form input[name=amount]", "0")
    page.click("#refund-button")
    page.wait_for_selector("#refund-page .errorlist")
    visit.check()
    page.fill("#refund-form input[name=amount]", "99999")
    page.click("#refund-button")
    page.wait_for_selector("#refund-confirmation")
    visit.check()
    page.click("#confirm-refund")  # more than was received: refused, back on the booking page
    page.wait_for_selector(".messagelist .error")
    visit.check()


def credit_note(visit: Visit) -> None:
    """A refund paid back by staff: the booking page lists its credit note and the documents' balance, the
    list of credit notes shows it, and its read-only page opens."""
    booking_page(visit)
    page = visit.page
    page.fill("#refund-form input[name=amount]", "1")
    page.check("#refund-form input[name=manual]")
    page.click("#refund-button")
    page.wait_for_selector("#refund-confirmation")
    page.click("#confirm-refund")
    page.wait_for_selector("tr.credit-note")
    assert page.locator("#documents-balance").count() == 1
    visit.check()
    visit.open_first_row("/admin/invoicing/creditnote/")


def dispatch_board(visit: Visit) -> None:
    visit.open("/admin/booking/booking/dispatch/?range=next7")
    page = visit.page
    # The board's own stylesheet applies: rides are cards, the lane of unassigned rides stands out.
    card = page.locator("a.ride").first
    assert card.evaluate("element => getComputedStyle(element).display") == "block"
    lane = page.locator("tr.unassigned th.lane")
    assert lane.evaluate("element => getComputedStyle(element).backgroundColor") == "rgb(255, 243, 205)"


def api_tokens(visit: Visit) -> None:
    visit.open("/admin/access/apitoken/add/")
    visit.page.fill("#id_name", "Hotel Sacher concierge")
    visit.page.check("input[name=scopes] >> nth=0")
    visit.page.click("input[name=_save]")
    visit.page.wait_for_selector("#issued-token")
    visit.check()
    visit.open_first_row("/admin/access/apitoken/")


def operator_profile(visit: Visit) -> None:
    """The one record, with the VAT setting for rides across the border shown as two explained choices."""
    visit.open("/admin/company/operatorprofile/")
    choices = visit.page.locator("input[name=foreign_route_vat]")
    assert choices.count() == 2
    assert visit.page.locator("input[name=foreign_route_vat][value=whole]").is_checked()  # today's default
    assert "UStG §3a" in visit.page.locator(".field-foreign_route_vat").inner_text()  # the help text


def day_work(visit: Visit) -> None:
    """The home page's first links: the dispatch board and the phone booking, each one click away."""
    visit.open("/admin/")
    page = visit.page
    first = page.locator("#content-main > *").first
    assert first.get_attribute("id") == "day-work"  # above every app
    page.click("#dispatch-board-link")
    page.wait_for_selector("a.ride")
    visit.check()
    visit.open("/admin/")
    page.click("#phone-booking-link")
    page.wait_for_selector("#phone-booking")
    visit.check()


def language_switch(visit: Visit) -> None:
    visit.open("/admin/")
    other = visit.page.locator("#language-switch button:not([disabled])").first
    switched_to = other.get_attribute("value")
    other.click()
    visit.page.wait_for_selector(f"html[lang={switched_to}]")
    visit.check()


def revenue(visit: Visit) -> None:
    """The monthly revenue, linked from the index: a range that runs backwards is refused on the page; the
    last twelve months show the demo day's phone bookings, paid this month, in the chart and the tables."""
    visit.open("/admin/")
    visit.page.click("#revenue-link")
    visit.page.wait_for_selector("#revenue-chart")
    first, last = visit.page.input_value("#id_first"), visit.page.input_value("#id_last")
    visit.page.fill("#id_first", last)
    visit.page.fill("#id_last", "2001-01")
    visit.page.click("#show-revenue")
    visit.page.wait_for_selector("#revenue-errors")
    visit.check()
    visit.page.fill("#id_first", first)
    visit.page.fill("#id_last", last)
    visit.page.click("#show-revenue")
    visit.page.wait_for_selector("#revenue-chart rect.channel-phone")
    visit.check()
    # The eleven months without money are one line, this month's phone bookings the other.
    assert visit.page.locator("#revenue-by-month tbody tr").count() == 2
    height = visit.page.evaluate("document.documentElement.scrollHeight")
    assert height < 2000  # a year of data fits a couple of screens (it was 5,400 px of empty months)


def accounting_export(visit: Visit) -> None:
    """The accountant's export, linked from the index: last month's preview and its download link; a period
    that runs backwards is refused on the page."""
    visit.open("/admin/")
    visit.page.click("#accounting-export-link")
    visit.page.wait_for_selector("#export-summary")
    visit.check()
    assert visit.page.locator("#download-export").count() == 1
    first = visit.page.input_value("#id_first")
    visit.page.fill("#id_first", visit.page.input_value("#id_last"))
    visit.page.fill("#id_last", first)
    visit.page.click("#show-export")
    visit.page.wait_for_selector("#export-errors")
    visit.check()
    assert visit.page.locator("#export-summary").count() == 0


def opens(path: str) -> Callable[[Visit], None]:
    return lambda visit: visit.open(path)


def opens_first_row(path: str) -> Callable[[Visit], None]:
    return lambda visit: visit.open_first_row(path)


PAGES: dict[str, Callable[[Visit], None]] = {
    "index": opens("/admin/"),
    "home's day work": day_work,
    "language switch": language_switch,
    "booking list": opens("/admin/booking/booking/"),
    "booking list filtered": opens("/admin/booking/booking/?status__exact=paid&pickup=next7"),
    "booking page": booking_page,
    "booking page with the ride's day": ride_day,
    "phone booking": phone_booking,
    "change ride": change_ride,
    "change ride: a price set by hand": price_by_hand,
    "refund": refund,
    "invoices": opens("/admin/invoicing/invoice/"),
    "invoice": opens_first_row("/admin/invoicing/invoice/"),  # read only
    "credit notes": opens("/admin/invoicing/creditnote/"),
    "credit note": credit_note,  # made by a refund, then read only
    "dispatch board": dispatch_board,
    "revenue": revenue,
    "accounting export": accounting_export,
    "tariffs": opens("/admin/pricing/tariff/"),
    "tariff": opens_first_row("/admin/pricing/tariff/"),
    "vehicle classes": opens("/admin/pricing/vehicleclass/"),
    "tours": opens("/admin/pricing/tour/"),
    "tour": opens_first_row("/admin/pricing/tour/"),
    "new tour": opens("/admin/pricing/tour/add/"),
    "lead-time policy": opens_first_row("/admin/booking/leadtimepolicy/"),
    "cancellation policy": opens_first_row("/admin/booking/cancellationpolicy/"),
    "operator profile": operator_profile,  # the list goes straight to the one record
    "legal texts": opens("/admin/company/legaltext/"),
    "legal text": opens_first_row("/admin/company/legaltext/"),  # a published version: read only
    "new legal text": opens("/admin/company/legaltext/add/?kind=terms"),  # from the current terms
    "places budget": opens_first_row("/admin/places/providerbudget/"),
    "retention policy": opens("/admin/privacy/retentionpolicy/add/"),  # with what the next run removes
    "holds": opens("/admin/privacy/hold/"),
    "new hold": opens("/admin/privacy/hold/add/"),  # the booking picked by its reference
    "data requests": opens("/admin/privacy/datarequest/"),
    "new data request": opens("/admin/privacy/datarequest/add/"),
    "API tokens": api_tokens,
    "drivers": opens("/admin/fleet/driver/"),
    "driver": opens_first_row("/admin/fleet/driver/"),
    "vehicles": opens("/admin/fleet/vehicle/"),
    "vehicle": opens_first_row("/admin/fleet/vehicle/"),
    "rating snapshots": opens("/admin/places/ratingsnapshot/"),
    "quote requests": opens("/admin/quote_requests/quoterequest/?status__exact=open"),
    "quote request": opens_first_row("/admin/quote_requests/quoterequest/"),
    "jobs": opens("/admin/jobs/job/"),
    "failed jobs": opens("/admin/jobs/job/?status__exact=FAILED"),
    "job": job_page,
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", PAGES)
def test_admin_page_has_no_console_error_and_no_axe_violation(
    name, language, served, tabs, chromium, signed_in
):
    if name == "language switch":  # it changes its tab's language: a context of its own
        context = signed_in_context(chromium, signed_in, language)
        try:
            walk(name, language, Visit(context.new_page(), served.base))
        finally:
            context.close()
    else:
        walk(name, language, tabs(language))


# The admin follows the system's dark theme; the pages with styles of our own are checked in it too.
@pytest.mark.parametrize("name", ["index", "booking page", "phone booking", "dispatch board", "revenue"])
def test_our_styled_pages_pass_in_the_dark_theme(name, tabs):
    walk(name, "en", tabs("en", "dark"), shot=f"admin-{name}-en-dark")


def walk(name: str, language: str, visit: Visit, shot: str = "") -> None:
    with screenshot_on_failure(visit.page, shot or f"admin-{name}-{language}"):
        PAGES[name](visit)
        assert visit.page.locator("#user-tools").count() == 1  # still signed in
        if name != "language switch":
            assert visit.page.locator("html").get_attribute("lang") == language
        assert visit.errors == []
        skip_without_axe()
        assert visit.violations == {}


@contextmanager
def screenshot_on_failure(page, name: str) -> Iterator[None]:
    """The page as it was when a check failed, under artifacts/browser/ (a screenshot of every page cost a
    third of a page's time in Chromium)."""
    try:
        yield
    except Exception:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"{name.replace(' ', '-')}.png", full_page=True)
        raise


def registered_models() -> list[str]:
    """Every model the admin has a page for ("app_label.model_name"), read from the admin's registry."""
    from django.contrib import admin

    return sorted(f"{model._meta.app_label}.{model._meta.model_name}" for model in admin.site._registry)


# Every registered model's list and add page, opened by the superuser; the add page's date and time pickers
# (calendar, clock, "Today", "Now") opened one after the other. An add page the admin refuses to everyone
# (a one-record policy that exists, a record only the service makes) answers 403 and its list offers no
# "Add" link.
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("model", registered_models())
def test_every_list_and_add_page_has_no_console_error(model, language, served, tabs):
    visit = tabs(language)
    page, app, name = visit.page, *model.split(".")
    with screenshot_on_failure(page, f"admin-add-{app}-{name}-{language}"):
        listed = page.goto(f"{served.base}/admin/{app}/{name}/")
        assert listed.status == 200, f"{model} list: {listed.status}"
        page.wait_for_load_state("load")
        offers_adding = page.locator(f'a.addlink[href$="/admin/{app}/{name}/add/"]').count() > 0
        added = page.goto(f"{served.base}/admin/{app}/{name}/add/")
        errors = visit.errors
        if added.status == 403:
            assert not offers_adding, f"{model}: the list offers an add page that refuses"
            errors = [error for error in errors if "status of 403" not in error]
        else:
            assert added.status == 200, f"{model} add page: {added.status}"
            page.wait_for_load_state("load")
            assert page.locator("#user-tools").count() == 1  # still signed in
            pickers = page.locator(".datetimeshortcuts a:visible")  # not an inline's hidden template row
            for index in range(pickers.count()):
                pickers.nth(index).click()
                page.keyboard.press("Escape")
        assert errors == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sign_in_page_has_no_console_error_and_no_axe_violation(
    language, served, chromium, console_errors, axe
):
    context = chromium.new_context(locale=LANGUAGES[language], viewport=DESKTOP, timezone_id="Europe/Vienna")
    try:
        page = context.new_page()
        errors = console_errors(page)
        page.goto(f"{served.base}/admin/login/")
        assert page.locator("html").get_attribute("lang") == language
        assert page.locator("#language-switch").count() == 1  # the header of ours, not Django's bare one
        page.fill("#id_username", STAFF)
        page.fill("#id_password", "not the password")
        page.click("input[type=submit]")
        page.wait_for_selector(".errornote")
        assert page.locator("#user-tools").count() == 0  # not signed in
        page.screenshot(path=ARTIFACTS / f"admin-sign-in-{language}.png", full_page=True)
        assert errors == []
        assert axe(page) == []
    finally:
        context.close()
