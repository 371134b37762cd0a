"""A traveller books in a real Chromium: the booking page at / in German and English, by the hour, a pickup
that is too early, a cancelled payment, a phone-sized screen, and the embedded form on another origin.
Payments go through the sandbox's hosted page. Each test leaves a screenshot in artifacts/browser/."""

import json
import re
import sqlite3

from operator_profile.colours import contrast
from tests.browser.conftest import PHONE, pickup_day


def text(page, selector: str) -> str:
    """What the reader sees, with no-break spaces (as in "74,00 €") as plain ones."""
    return page.inner_text(selector).replace("\xa0", " ")


def choose_place(page, field: str, typed: str, *, keyboard: bool = False) -> None:
    page.fill(f"#cb-{field}", typed)
    page.wait_for_selector(f"#cb-{field}-list li[role=option]")
    if keyboard:
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
    else:
        page.click(f"#cb-{field}-list li[role=option] >> nth=0")


def fill_ride(page, *, time: str = "10:00", keyboard: bool = False) -> None:
    choose_place(page, "from", "Sacher", keyboard=keyboard)
    choose_place(page, "to", "Flughafen Wien", keyboard=keyboard)
    page.fill("#cb-date", pickup_day())
    page.fill("#cb-time", time)
    settled(page)


def settled(page) -> None:
    """Wait until the route and the prices for what was entered have arrived."""
    page.wait_for_selector("#cb-quote[aria-busy=false] .cb-lines")


def fill_contact(page) -> None:
    page.fill("#cb-name", "Anna Berger")
    page.fill("#cb-email", "anna@example.com")
    page.fill("#cb-phone", "+43 660 1234567")
    page.check("#cb-terms")  # the terms and conditions, required before Pay


def latest_booking(service) -> dict | None:
    """The newest booking in the live server's database."""
    with sqlite3.connect(service.database) as database:
        database.row_factory = sqlite3.Row
        row = database.execute(
            "SELECT reference, status, booking_type FROM booking_booking ORDER BY id DESC"
        ).fetchone()
    return dict(row) if row else None


def pay_in_the_sandbox(page, service) -> None:
    page.wait_for_url(re.compile(re.escape(service.base) + r"/booking/sandbox/sbx_cs_\w+$"))
    page.click("#pay")
    page.wait_for_url(re.compile(re.escape(service.base) + r"/booking/success\?session_id="))


def test_a_transfer_is_booked_and_paid_in_german(open_tab, service):
    tab = open_tab(locale="de-DE")
    page = tab.page
    page.goto(service.base + "/")  # Accept-Language: de
    assert page.get_attribute("html", "lang") == "de"
    assert page.title().startswith("Ihren Chauffeur in Wien buchen")
    fill_ride(page)
    assert text(page, "[data-price-for=executive]") == "74,00 €"
    quote = text(page, ".cb-quote")
    assert (
        "Grundpreis" in quote
        and "Strecke 21,8 km" in quote
        and "inkl. 10 % MwSt.: 6,73 € (netto 67,27 €)" in quote
    )
    assert "21,8 km · etwa" in text(page, "#cb-route")
    fill_contact(page)
    assert text(page, "#cb-pay") == "74,00 € bezahlen"
    tab.screenshot("german-form")
    page.click("#cb-pay")

    page.wait_for_url(re.compile(r"/booking/sandbox/"))
    sandbox = text(page, "main")
    assert (
        "Testzahlung" in sandbox and "Grundpreis" in sandbox and "74,00 €" in sandbox and "MwSt." in sandbox
    )
    tab.screenshot("german-sandbox")
    pay_in_the_sandbox(page, service)
    assert "Vielen Dank – Ihre Buchung ist bezahlt" in text(page, "h1")
    assert text(page, "#status") == "Bezahlt"
    assert re.search(r"\d{1,2}\. \w+ \d{4}, 10:00", text(page, "#pickup"))
    tab.screenshot("german-paid")
    booking = latest_booking(service)
    assert booking["status"] == "paid" and booking["reference"] == text(page, "#reference")
    assert tab.problems == []


def test_a_transfer_is_booked_and_paid_in_english_on_a_phone(open_tab, service):
    tab = open_tab(locale="en-GB", viewport=PHONE)
    page = tab.page
    page.goto(service.base + "/de/")
    page.click("nav.cb-languages >> text=English")  # the switch
    page.wait_for_url(service.base + "/en/")
    assert page.get_attribute("html", "lang") == "en"
    fill_ride(page, keyboard=True)  # suggestions picked with the arrow keys and Enter
    assert page.input_value("#cb-from") == "Hotel Sacher Wien, Vienna, Austria"
    assert text(page, "[data-price-for=executive]") == "€74.00"
    fill_contact(page)
    page.click("text=First Class")
    assert text(page, "#cb-pay").startswith("Pay €")
    # Nothing is wider than the phone: no sideways scrolling.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    tab.screenshot("english-phone-form")
    page.keyboard.press("Tab")
    page.focus("#cb-pay")
    page.keyboard.press("Enter")  # the Pay button works from the keyboard
    pay_in_the_sandbox(page, service)
    assert "Thank you – your booking is paid" in text(page, "h1")
    assert text(page, "#status") == "Paid"
    assert "First Class" in text(page, "main")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    tab.screenshot("english-phone-paid")
    assert tab.problems == []


def test_an_hourly_booking_keeps_its_choices_over_a_reload(open_tab, service):
    tab = open_tab()
    page = tab.page
    page.goto(service.base + "/en/")
    page.check("input[name=kind][value=hourly]")
    page.select_option("#cb-hours", "3")
    fill_ride(page)
    assert text(page, ".cb-quote .cb-lines tbody").strip() == "3 hours with chauffeur\t€195.00"
    fill_contact(page)
    page.reload()  # choices survive it
    assert page.is_checked("input[name=kind][value=hourly]")
    assert page.input_value("#cb-hours") == "3" and page.input_value("#cb-name") == "Anna Berger"
    settled(page)
    page.check("#cb-terms")
    tab.screenshot("hourly-form")
    page.click("#cb-pay")
    pay_in_the_sandbox(page, service)
    assert "3 hours with chauffeur" in text(page, "#price")
    assert latest_booking(service)["booking_type"] == "hourly"
    tab.screenshot("hourly-paid")
    assert tab.problems == []


def test_a_pickup_too_soon_is_refused_with_the_earliest_time_offered(open_tab, service):
    tab = open_tab()
    page = tab.page
    page.goto(service.base + "/en/")
    before = latest_booking(service)
    choose_place(page, "from", "Sacher")
    choose_place(page, "to", "Westbahnhof")
    page.fill("#cb-date", pickup_day(0))
    page.fill("#cb-time", "00:05")
    error = page.wait_for_selector("#cb-time-error:not([hidden])")
    assert "The earliest pickup is" in error.inner_text()
    assert page.get_attribute("#cb-time", "aria-invalid") == "true"
    fill_contact(page)
    page.click("#cb-pay")  # refused here, never sent
    page.wait_for_selector("#cb-form-error:not([hidden])")
    assert text(page, "#cb-form-error") == "Please check the marked fields."
    tab.screenshot("too-early")
    offer = page.inner_text("#cb-time-error button")  # "Pick me up at …"
    page.click("#cb-time-error button")
    # the time offered, taken as it was: the earliest moves on with the clock, so the page may offer anew
    assert offer.strip().endswith(page.input_value("#cb-time"))
    earliest = page.input_value("#cb-date") + "T" + page.input_value("#cb-time")
    assert earliest > pickup_day(0) + "T00:05"
    settled(page)
    if page.is_visible("#cb-time-error"):  # the clock passed the offer meanwhile: a later one stands
        assert page.inner_text("#cb-time-error button") != offer
    assert latest_booking(service) == before
    assert tab.problems == []


def test_a_cancelled_payment_returns_to_the_filled_form(open_tab, service):
    tab = open_tab(locale="de-DE")
    page = tab.page
    page.goto(service.base + "/de/")
    fill_ride(page, time="11:30")
    fill_contact(page)
    page.fill("#cb-notes", "Kindersitz, bitte")
    page.click("#cb-pay")
    page.wait_for_url(re.compile(r"/booking/sandbox/"))
    page.click("#cancel")
    page.wait_for_url(re.compile(r"/booking/cancel\?booking="))
    assert text(page, "h1") == "Zahlung abgebrochen – es wurde nichts abgebucht"
    assert text(page, "#status") == "Nicht gebucht: Zahlung nicht abgeschlossen"
    assert (
        latest_booking(service)["status"] == "expired"
    )  # its checkout is closed: nobody pays it by accident
    tab.screenshot("cancelled")
    page.evaluate("localStorage.clear()")  # the form is filled from the booking itself
    page.click("#resume")
    settled(page)
    assert page.input_value("#cb-from") == "Hotel Sacher Wien, Wien, Österreich"
    assert page.input_value("#cb-time") == "11:30" and page.input_value("#cb-date") == pickup_day()
    assert (
        page.input_value("#cb-notes") == "Kindersitz, bitte"
        and page.input_value("#cb-email") == "anna@example.com"
    )
    tab.screenshot("cancelled-form-again")
    assert tab.problems == []


def test_the_embedded_form_books_from_another_origin(open_tab, service, website):
    tab = open_tab(locale="de-DE", viewport=PHONE)
    page = tab.page
    calls = []
    page.on(
        "request", lambda request: request.url.startswith(service.base + "/api/") and calls.append(request)
    )
    page.goto(website.base + "/")
    page.wait_for_selector(".chauffeur-booking #cb-from")  # in the shadow root embed.js made
    assert text(page, "h1") == "Hotel Beispiel – Transfers"  # the website's own page is untouched
    fill_ride(page)
    fill_contact(page)
    tab.screenshot("embedded-form")
    page.click("#cb-pay")
    pay_in_the_sandbox(page, service)
    assert "Ihre Buchung ist bezahlt" in text(page, "h1")
    checkout = next(call for call in calls if call.url.endswith("/api/page/checkout"))
    assert checkout.all_headers()["origin"] == website.base  # a cross-origin call, allowed by CORS
    assert {call.url.split("?")[0].removeprefix(service.base) for call in calls} >= {
        "/api/v1/places",
        "/api/page/quote",
        "/api/v1/availability",
        "/api/page/checkout",
    }
    assert all(call.all_headers().get("page-session") for call in calls)  # each its own page session
    tab.screenshot("embedded-paid")
    assert tab.problems == []


def test_the_form_is_labelled_keyboard_friendly_and_readable(open_tab, service):
    tab = open_tab(viewport=PHONE)
    page = tab.page
    page.goto(service.base + "/en/")
    assert page.locator("main").count() == 1
    unlabelled = page.evaluate(
        """[...document.querySelectorAll('form input, form select, form textarea')]
             .filter(field => field.labels.length === 0).map(field => field.name)"""
    )
    assert unlabelled == []
    page.keyboard.press("Tab")  # the first stop is the skip link
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.focus("#cb-name")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"
    page.click("#cb-pay")  # an empty form: every required field says what it needs
    page.wait_for_selector("#cb-form-error:not([hidden])")
    for name in ["from", "to", "date", "time", "name", "email", "phone", "terms"]:
        assert page.get_attribute(f"#cb-{name}", "aria-invalid") == "true"
        assert f"cb-{name}-error" in page.get_attribute(f"#cb-{name}", "aria-describedby")
        assert page.is_visible(f"#cb-{name}-error")
    assert page.evaluate("document.activeElement.id") == "cb-from"  # focus goes to the first one
    tab.screenshot("empty-form-errors")
    for selector in ["#cb-pay", ".cb-hint", "#cb-name-error", ".cb-title", ".cb-header a"]:
        foreground, background = page.evaluate(
            """selector => {
                 const element = document.querySelector(selector);
                 let back = element, colour = 'rgba(0, 0, 0, 0)';
                 while (back && (colour === 'rgba(0, 0, 0, 0)' || colour === 'transparent')) {
                   colour = getComputedStyle(back).backgroundColor; back = back.parentElement;
                 }
                 return [getComputedStyle(element).color, back ? colour : 'rgb(255, 255, 255)'];
               }""",
            selector,
        )
        assert contrast(hex_colour(foreground), hex_colour(background)) >= 4.5, selector
    assert tab.problems == []


def hex_colour(css: str) -> str:
    red, green, blue = (int(part) for part in re.findall(r"\d+", css)[:3])
    return f"#{red:02x}{green:02x}{blue:02x}"


def test_a_family_with_child_seats_is_offered_the_van_and_pays_for_the_seats(open_tab, service):
    tab = open_tab(locale="de-DE")
    page = tab.page
    page.goto(service.base + "/de/")
    fill_ride(page)
    page.select_option("#cb-passengers", "4")  # two adults, two children: no sedan seats four
    settled(page)
    page.wait_for_selector("input[name=vehicle][value=executive]:disabled", state="attached")
    assert (
        text(page, "[data-price-for=executive]")
        == text(page, "[data-price-for=first]")
        == "Zu klein für diese Fahrt"
    )
    assert page.is_checked("input[name=vehicle][value=business-van]")  # the one class that fits, chosen
    van = text(page, "[data-price-for=business-van]")
    page.select_option("#cb-luggage", "2")
    settled(page)
    page.select_option("#cb-extra-child-seat", "2")
    page.wait_for_selector(".cb-quote >> text=Kindersitz × 2")
    settled(page)
    quote = text(page, ".cb-quote")
    assert re.search(r"Kindersitz × 2\s+20,00 €", quote), quote
    with_seats = text(page, "[data-price-for=business-van]")
    assert (
        float(with_seats[:-2].replace(".", "").replace(",", "."))
        == float(van[:-2].replace(".", "").replace(",", ".")) + 20
    )
    fill_contact(page)
    tab.screenshot("german-family-form")
    page.click("#cb-pay")
    page.wait_for_url(re.compile(r"/booking/sandbox/"))
    assert "Kindersitz × 2" in text(page, "main")
    pay_in_the_sandbox(page, service)
    assert text(page, "#status") == "Bezahlt"
    with sqlite3.connect(service.database) as database:
        passengers, luggage, quote_record = database.execute(
            "SELECT passengers, luggage, quote_record FROM booking_booking ORDER BY id DESC"
        ).fetchone()
    assert (passengers, luggage) == (4, 2)
    assert '"code": "child-seat"' in quote_record and '"quantity": 2' in quote_record
    assert tab.problems == []


BELVEDERE = "Schloss Belvedere, Wien, Österreich"  # as the suggestion names it


def test_a_traveller_adds_stops_removes_one_and_pays_for_the_wait(open_tab, service):
    tab = open_tab(locale="de-DE")
    page = tab.page
    page.goto(service.base + "/de/")
    fill_ride(page)
    plain = text(page, "[data-price-for=executive]")
    page.click("#cb-add-stop")
    choose_place(page, "stop-1", "Stephansdom")
    page.click("#cb-add-stop")
    choose_place(page, "stop-2", "Belvedere")
    page.select_option("#cb-wait-1", "15")
    page.wait_for_selector(".cb-quote >> text=Halt 1: Stephansdom, Wien, Österreich, 15 Min. Wartezeit")
    settled(page)
    assert re.search(r"Halt 2: Schloss Belvedere, Wien, Österreich\s+0,00 €", text(page, ".cb-quote"))
    page.click("[data-remove-stop='1']")  # the Stephansdom goes, the Belvedere moves up
    page.wait_for_selector(".cb-quote >> text=Halt 1: Schloss Belvedere")
    assert page.is_hidden("[data-stop='2']")
    assert page.input_value("#cb-stop-1") == BELVEDERE
    page.select_option("#cb-wait-1", "30")
    page.wait_for_selector(".cb-quote >> text=Halt 1: Schloss Belvedere, Wien, Österreich, 30 Min. Wartezeit")
    settled(page)
    quote = text(page, ".cb-quote")
    # no stop fee in the seeded tariff: the wait alone, 2 × 12,00 €
    assert re.search(r"Halt 1: Schloss Belvedere, Wien, Österreich, 30 Min\. Wartezeit\s+24,00 €", quote), (
        quote
    )
    assert text(page, "[data-price-for=executive]") != plain
    page.click("#cb-add-stop")
    fill_contact(page)
    page.click("#cb-pay")  # a stop shown without its address is asked for, not dropped
    page.wait_for_selector("#cb-stop-2-error:not([hidden])")
    page.click("[data-remove-stop='2']")
    tab.screenshot("german-stops-form")
    page.click("#cb-pay")
    page.wait_for_url(re.compile(r"/booking/sandbox/"))
    pay_in_the_sandbox(page, service)
    assert text(page, "#status") == "Bezahlt"
    assert text(page, "#stops") == f"{BELVEDERE}, 30 Min. Wartezeit"
    with sqlite3.connect(service.database) as database:
        (stops,) = database.execute("SELECT stops FROM booking_booking ORDER BY id DESC").fetchone()
    assert json.loads(stops) == [{"address": BELVEDERE, "wait_minutes": 30}]
    assert tab.problems == []


def test_a_group_no_car_takes_asks_for_a_quote_from_the_page(open_tab, service):
    tab = open_tab(locale="de-DE")
    page = tab.page
    page.goto(service.base + "/de/")
    fill_ride(page)
    page.select_option("#cb-passengers", "8")  # "8+": more than the van seats
    page.wait_for_selector("#cb-ask-quote")
    assert page.is_disabled("input[name=vehicle][value=business-van]")
    page.click("#cb-ask-quote")  # no name and e-mail yet: asked for, nothing sent
    assert text(page, "#cb-form-error").startswith("Um ein Angebot anzufragen")
    page.fill("#cb-name", "Anna Berger")
    page.fill("#cb-email", "anna@example.com")
    page.fill("#cb-notes", "Wir sind 12, mit 12 Koffern.")
    page.click("#cb-ask-quote")
    page.wait_for_selector("#cb-quote-asked:not([hidden])")
    said = text(page, "#cb-quote-asked")
    reference = re.search(r"QR-[A-Z0-9]{6}", said)[0]
    assert "anna@example.com" in said and page.is_disabled("#cb-pay")
    tab.screenshot("german-quote-request")
    with sqlite3.connect(service.database) as database:
        stored = database.execute(
            "SELECT reference, passengers, reason, details, channel, email FROM quote_requests_quoterequest"
        ).fetchall()
    assert stored == [
        (
            reference,
            8,
            "vehicle_too_small",
            "Wir sind 12, mit 12 Koffern.\nFahrgäste: 8+",  # "8+" as chosen, for staff to read
            "website",
            "anna@example.com",
        )
    ]
    assert tab.problems == []
