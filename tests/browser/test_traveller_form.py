"""The traveller form as a person meets it, in a real Chromium, German and English: no "no route"
error while a place is still being typed, an hourly hire "as directed" booked and paid without a
destination, a tour's own hours and description, plural words that fit their count, success and manage
pages that repeat everything entered, the flight number asked for a pickup at an airport only, and an
embedded form that adds no heading to the host page. Every page opened reports no console error."""

import contextlib
import random
import sqlite3
import time
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.conftest import DESKTOP, PHONE, pickup_day
from tests.browser.test_booking_page import (
    choose_place,
    fill_contact,
    latest_booking,
    pay_in_the_sandbox,
    settled,
    text,
)

AS_DIRECTED = {"de": "Nach Vereinbarung", "en": "As directed"}


def watch_route_errors(page) -> None:
    """Remember in the page whether the destination's error was ever shown, however briefly."""
    page.evaluate(
        """() => {
             const box = document.getElementById('cb-to-error');
             window.routeErrorSeen = !box.hidden;
             new MutationObserver(() => { if (!box.hidden) window.routeErrorSeen = true; })
               .observe(box, { attributes: true, childList: true, characterData: true, subtree: true });
           }"""
    )


@pytest.mark.parametrize("language", ["de", "en"])
def test_no_route_error_flashes_while_the_destination_is_typed(open_tab, service, language):
    tab = open_tab(locale="de-DE" if language == "de" else "en-GB")
    page = tab.page
    routed = []
    page.on(
        "request", lambda r: "/api/page/quote" in r.url and routed.append(parse_qs(urlsplit(r.url).query))
    )
    page.goto(f"{service.base}/{language}/")
    watch_route_errors(page)
    choose_place(page, "from", "Sacher")
    page.click("#cb-to")  # the pickup is left: before, its blur routed whatever the destination held 0.3 s on
    page.locator("#cb-to").press_sequentially("Flughafen Wien", delay=120)  # a quick typist
    page.wait_for_timeout(1200)  # a pause with the half-chosen text in the field
    assert routed == [] and page.is_hidden("#cb-to-error")
    page.click("#cb-to-list li[role=option] >> nth=0")
    settled(page)
    assert [query["to"][0] for query in routed] == [page.input_value("#cb-to")]  # the chosen place only
    assert page.evaluate("window.routeErrorSeen") is False
    tab.screenshot(f"typing-destination-{language}")
    assert tab.problems == []


def test_leaving_an_unknown_destination_says_so_beside_it(open_tab, service):
    tab = open_tab()
    page = tab.page
    page.goto(service.base + "/en/")
    choose_place(page, "from", "Sacher")
    page.fill("#cb-to", "Qwxzy Nowhere")
    page.click("#cb-name")  # left the field: now the traveller is told
    page.wait_for_selector("#cb-to-error:not([hidden])")
    assert "could not find a route" in text(page, "#cb-to-error")
    # Chromium logs the route's 422 answer as a failed resource; nothing else may be reported.
    assert [problem for problem in tab.problems if "status of 422" not in problem] == []


def test_an_hourly_hire_as_directed_is_booked_and_paid_in_german(open_tab, service):
    tab = open_tab(locale="de-DE", viewport=PHONE)
    page = tab.page
    page.goto(service.base + "/de/")
    page.check("input[name=kind][value=hourly]")
    assert page.is_visible("#cb-to-hint") and "optional" in text(page, "#cb-to-hint")
    page.select_option("#cb-hours", "3")
    choose_place(page, "from", "Sacher")
    page.fill("#cb-date", pickup_day())
    page.fill("#cb-time", "09:30")
    settled(page)
    assert text(page, "#cb-route").startswith("Nach Vereinbarung")  # no route to show
    assert "km" not in text(page, "#cb-route")
    assert text(page, "[data-price-for=executive]") == "195,00 €"  # 3 h × 65 €, nothing for a drive
    fill_contact(page)
    assert page.is_hidden("#cb-flight")  # from the hotel: no flight to meet
    page.fill("#cb-notes", "Bitte am Ausgang B warten")
    tab.screenshot("as-directed-form")
    page.click("#cb-pay")
    pay_in_the_sandbox(page, service)
    assert latest_booking(service)["booking_type"] == "hourly"
    details = text(page, "#details")
    for shown in [
        "Hotel Sacher",
        "Nach Vereinbarung",
        "Stundenweise: 3 Stunden",
        "09:30",
        "Bitte am Ausgang B warten",
        "Anna Berger",
        "+43 660 1234567",
        "anna@example.com",
    ]:
        assert shown in details, shown
    assert text(page, "#amount") == "195,00 €"
    tab.screenshot("as-directed-paid")
    page.click("#manage")
    page.wait_for_selector("#cancellation")
    assert page.locator("h1").count() == 1 and text(page, "h1") == "Ihre Buchung"
    assert page.locator("h2", has_text="Ihre Buchung").count() == 0
    order = page.evaluate(
        """() => ['details', 'price', 'terms', 'cancel-booking'].map(id => document.getElementById(id))
             .map((element, index, all) => index === 0 || (all[index - 1].compareDocumentPosition(element) & 4))"""
    )
    assert all(order), order  # details, price, then the terms beside the Cancel button
    assert "Kostenlos stornierbar bis" in text(page, "#terms") and "Nach Vereinbarung" in text(
        page, "#details"
    )
    tab.screenshot("as-directed-manage")
    assert tab.problems == []


@pytest.mark.parametrize(
    "language, city, wachau",
    [
        ("en", "3 hours · Three hours through Vienna", "8 hours · A day in the Wachau valley"),
        ("de", "3 Stunden · Drei Stunden mit Ihrem Chauffeur", "8 Stunden · Ein Tag in der Wachau"),
    ],
)
def test_a_tour_shows_its_own_hours_and_description_not_a_drive(open_tab, service, language, city, wachau):
    tab = open_tab(locale="de-DE" if language == "de" else "en-GB")
    page = tab.page
    page.goto(f"{service.base}/{language}/")
    choose_place(page, "from", "Sacher")
    choose_place(page, "to", "Flughafen Wien")
    settled(page)
    assert "km" in text(page, "#cb-route")  # a transfer shows its drive
    page.check("input[name=kind][value=tour]")
    settled(page)
    assert text(page, "#cb-route") == ""
    about = page.locator(".cb-tour-about:visible")
    assert about.count() == 1 and text(page, ".cb-tour-about:visible").startswith(city)
    page.select_option("#cb-tour", "wachau-valley")
    assert text(page, ".cb-tour-about:visible").startswith(wachau)
    tab.screenshot(f"tour-{language}")
    assert tab.problems == []


@pytest.mark.parametrize(
    "language, one, two",
    [("en", "1 suggestion:", "2 suggestions:"), ("de", "1 Vorschlag:", "2 Vorschläge:")],
)
def test_the_number_of_suggestions_is_said_with_the_right_plural(open_tab, service, language, one, two):
    tab = open_tab(locale="de-DE" if language == "de" else "en-GB")
    page = tab.page
    page.goto(f"{service.base}/{language}/")
    page.fill("#cb-from", "Sacher")  # one place in the gazetteer
    page.wait_for_function("() => document.getElementById('cb-route').textContent.includes(':')")
    assert text(page, "#cb-route").startswith(one)
    page.fill("#cb-from", "Belvedere")  # two
    page.wait_for_function("two => document.getElementById('cb-route').textContent.startsWith(two)", arg=two)
    assert tab.problems == []


def test_the_success_page_in_english_repeats_a_transfer(open_tab, service):
    tab = open_tab()
    page = tab.page
    page.goto(service.base + "/en/")
    choose_place(page, "from", "Flughafen Wien")  # met at arrivals: the page asks for the flight
    choose_place(page, "to", "Sacher")
    page.fill("#cb-date", pickup_day())
    page.fill("#cb-time", "10:00")
    settled(page)
    fill_contact(page)
    page.fill("#cb-flight", "LH 1234")
    page.click("#cb-pay")
    pay_in_the_sandbox(page, service)
    details = text(page, "#details")
    for shown in [
        "Vienna International Airport",
        "Transfer",
        "10:00",
        "LH 1234",
        "Anna Berger",
        "+43 660 1234567",
        "anna@example.com",
    ]:
        assert shown in details, shown
    assert "As directed" not in details and text(page, "#amount") == "€74.00"
    page.click("#manage")
    page.wait_for_selector("#terms")
    assert "Cancelling is free until" in text(page, "#terms")
    assert tab.problems == []


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_flight_number_is_asked_for_a_pickup_at_an_airport_only(open_tab, service, language):
    tab = open_tab(locale="de-DE" if language == "de" else "en-GB", viewport=PHONE)
    page = tab.page
    sent = []
    page.on("request", lambda r: "/api/page/checkout" in r.url and sent.append(r.post_data_json))
    page.goto(f"{service.base}/{language}/")
    assert page.is_hidden("#cb-flight")
    choose_place(page, "from", "Flughafen Wien")
    choose_place(page, "to", "Sacher")
    settled(page)
    page.wait_for_selector("#cb-flight", state="visible")
    page.fill("#cb-flight", "OS 123")
    tab.screenshot(f"flight-asked-{language}")
    choose_place(page, "from", "Sacher")  # the other way round: to the airport, no flight to meet
    choose_place(page, "to", "Flughafen Wien")
    settled(page)
    page.wait_for_selector("#cb-flight", state="hidden")
    page.fill("#cb-date", pickup_day())
    page.fill("#cb-time", "10:00")
    settled(page)
    fill_contact(page)
    page.click("#cb-pay")
    pay_in_the_sandbox(page, service)
    (checkout,) = sent
    assert "flightNumber" not in checkout["bookingData"]  # what is hidden is not sent
    assert "OS 123" not in text(page, "#details")
    assert tab.problems == []


def test_the_embedded_form_adds_no_heading_to_the_host_page(open_tab, service, website):
    tab = open_tab(locale="de-DE")
    page = tab.page
    page.goto(website.base + "/")
    page.wait_for_selector(".chauffeur-booking #cb-from")
    headings = page.locator("h1, h2, h3, h4, h5, h6")  # Playwright's CSS reaches into the open shadow root
    assert headings.count() == 1 and text(page, "h1") == "Hotel Beispiel – Transfers"
    assert text(page, ".chauffeur-booking .cb-title") == "Ihren Chauffeur buchen"
    assert page.get_attribute(".chauffeur-booking section", "aria-labelledby") == "cb-title"  # still named
    assert tab.problems == []


# --- suggestions at a person's speed ------------------------------------------------------------------------
# A traveller types "Hotel", reads the list a moment, types " Imperial" and takes the place at once: a tap
# half a second after the last key, or ↓ and Enter. The network is slow, the more so for a shorter text (a
# busier search), so the list on screen is still the one for "Hotel" (Hotel Sacher on top) when they act,
# and an answer to an earlier text may come after a later one's. What they get is Hotel Imperial, never a
# place of a list for an older text.

IMPERIAL = {"en": "Hotel Imperial, a Luxury Collection Hotel, Vienna", "de": "Hotel Imperial Wien, Wien"}
VIEWPORTS = {"phone": PHONE, "desktop": DESKTOP}


def answer_delay(typed: str) -> float:
    """Seconds the suggestions for `typed` are held back: "Hotel" 1.3 s, "Hotel Imperial" 0.76 s."""
    return max(0.75, 1.6 - 0.06 * len(typed))


class SlowSuggestions:
    """The suggestions endpoint behind a slow network, in the browser: each call is held back for
    `answer_delay` of its text, then sent on. Playwright's sync API runs the route handler only while the
    test waits on the page, so the test waits through `wait` and `wait_until`, which let held calls go at
    their time (a call the page cancelled meanwhile just goes nowhere)."""

    def __init__(self, page):
        self.page, self.held, self.asked = page, [], []
        page.route(self.suggestions, self.hold)

    @staticmethod
    def suggestions(url: str) -> bool:
        return "/api/v1/places?" in url

    def stop(self) -> None:
        """The network is fast again: what is held goes now, and nothing is held any more."""
        self.page.unroute(self.suggestions, self.hold)
        for _, route in self.held:
            with contextlib.suppress(Exception):
                route.continue_()
        self.held = []

    def hold(self, route) -> None:
        typed = parse_qs(urlsplit(route.request.url).query)["input"][0]
        self.asked.append(typed)
        self.held.append((time.monotonic() + answer_delay(typed), route))

    def release(self) -> None:
        now = time.monotonic()
        for due, route in [item for item in self.held if item[0] <= now]:
            self.held.remove((due, route))
            with contextlib.suppress(Exception):  # the page cancelled the call: nobody waits for it
                route.continue_()

    def wait(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self.release()
            self.page.wait_for_timeout(min(left, 0.02) * 1000)

    def wait_until(self, condition, timeout: float = 10) -> None:
        end = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < end, "waited in vain"
            self.wait(0.02)


def type_like_a_person(page, slow: SlowSuggestions, words: list[tuple[str, float]], *, seed: int) -> None:
    """Each key 150–300 ms after the one before (random, seeded), and after each part its pause (s)."""
    pace = random.Random(seed)
    for part, pause in words:
        for index, key in enumerate(part):
            if index:
                slow.wait(pace.randint(150, 300) / 1000)
            page.keyboard.type(key)
        slow.wait(pause)


def open_for_typing(open_tab, service, language: str, viewport: str):
    tab = open_tab(
        locale="de-DE" if language == "de" else "en-GB",
        viewport=VIEWPORTS[viewport],
        has_touch=viewport == "phone",
        is_mobile=viewport == "phone",
    )
    tab.page.goto(f"{service.base}/{language}/")
    return tab


def stale_list_on_screen(page, field: str) -> bool:
    """The list shows options while the one for the text typed is still awaited."""
    return page.evaluate(
        """field => {
             const list = document.getElementById(`cb-${field}-list`);
             return !list.hidden && list.getAttribute('aria-busy') === 'true'
               && document.getElementById(`cb-${field}`).getAttribute('aria-busy') === 'true'
               && list.querySelectorAll('li[aria-disabled=true]').length > 0;
           }""",
        field,
    )


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("language", ["en", "de"])
def test_a_tap_half_a_second_after_typing_takes_the_place_typed(open_tab, service, language, viewport):
    tab = open_for_typing(open_tab, service, language, viewport)
    page = tab.page
    slow = SlowSuggestions(page)
    (page.tap if viewport == "phone" else page.click)("#cb-from")
    type_like_a_person(page, slow, [("Hotel", 2.2), (" Imperial", 0.5)], seed=36)
    assert stale_list_on_screen(page, "from")  # "Hotel"'s list, Hotel Sacher on top, is what they see
    first = page.locator("#cb-from-list li").first
    assert first.inner_text().startswith("Hotel Sacher")
    # A finger does not wait for the list to be pickable (Playwright would: the options are aria-disabled).
    first.tap(force=True) if viewport == "phone" else first.click(force=True)
    slow.wait_until(lambda: page.input_value("#cb-from") != "Hotel Imperial")
    assert page.input_value("#cb-from").startswith(IMPERIAL[language])  # the suggestion's own text
    assert page.is_hidden("#cb-from-list") and page.get_attribute("#cb-from-list", "aria-busy") == "false"
    assert "Hotel" in slow.asked and "Hotel Imperial" in slow.asked
    tab.screenshot(f"suggestion-tapped-{language}-{viewport}")
    assert tab.problems == []


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("language", ["en", "de"])
def test_arrow_down_and_enter_right_after_typing_take_the_place_typed(open_tab, service, language, viewport):
    tab = open_for_typing(open_tab, service, language, viewport)
    page = tab.page
    choose_place(page, "from", "Flughafen Wien")
    slow = SlowSuggestions(page)
    page.click("#cb-to")
    type_like_a_person(page, slow, [("Hotel", 2.2), (" Imperial", 0.15)], seed=37)
    assert stale_list_on_screen(page, "to")
    page.keyboard.press("ArrowDown")  # before: it marked Hotel Sacher, the older list's first
    slow.wait(0.15)
    page.keyboard.press("Enter")
    slow.wait_until(lambda: page.input_value("#cb-to") != "Hotel Imperial")
    assert page.input_value("#cb-to").startswith(IMPERIAL[language])
    assert page.is_hidden("#cb-to-list")
    settled(page)  # routed to the place typed
    assert "km" in text(page, "#cb-route")
    tab.screenshot(f"suggestion-keyboard-{language}-{viewport}")
    assert tab.problems == []


def test_the_place_typed_is_the_place_booked(open_tab, service):
    tab = open_for_typing(open_tab, service, "de", "phone")
    page = tab.page
    slow = SlowSuggestions(page)
    page.tap("#cb-from")
    type_like_a_person(page, slow, [("Hotel", 2.2), (" Imperial", 0.5)], seed=38)
    page.locator("#cb-from-list li").first.tap(force=True)
    slow.wait_until(lambda: page.input_value("#cb-from") != "Hotel Imperial")
    slow.stop()
    choose_place(page, "to", "Flughafen Wien")
    page.fill("#cb-date", pickup_day())
    page.fill("#cb-time", "10:00")
    settled(page)
    fill_contact(page)
    page.tap("#cb-pay")
    pay_in_the_sandbox(page, service)
    assert "Hotel Imperial" in text(page, "#details")
    with sqlite3.connect(service.database) as database:
        (origin,) = database.execute("SELECT origin FROM booking_booking ORDER BY id DESC").fetchone()
    assert origin.startswith("Hotel Imperial")
    assert tab.problems == []
