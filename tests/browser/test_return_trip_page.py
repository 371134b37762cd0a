"""A traveller books a return trip on the booking page in a real Chromium: the box reveals the way back's
date and time, the page prices both rides and their total, and one payment in the sandbox pays both
bookings (the way back names its way out). A way back picked up before the way out arrives is said beside
its time, by the page itself or from the server's refusal, and nothing is stored. In English and German."""

import json
import re
import sqlite3

from tests.browser.conftest import PHONE, pickup_day
from tests.browser.test_booking_page import (
    fill_contact,
    fill_ride,
    latest_booking,
    pay_in_the_sandbox,
    settled,
    text,
)

BACK_DAY = pickup_day(5)
REFUSED = "the server responded with a status of 400 (Bad Request) ("


def euros(shown: str) -> float:
    """ "€148.00" or "148,00 €" as a number."""
    digits = re.sub(r"[^\d,.]", "", shown)
    if "," in shown.split("€")[-1] or shown.endswith("€"):  # German: 1.234,50 €
        digits = digits.replace(".", "").replace(",", ".")
    return float(digits.replace(",", ""))


def return_trip(page, *, day: str = BACK_DAY, time: str = "18:30") -> None:
    """Tick the box, as a traveller does, and pick the way back's day and time."""
    page.get_by_role("checkbox", name=re.compile("Return trip|Hin- und Rückfahrt")).check()
    page.wait_for_selector("#cb-way-back:not([hidden])")
    page.fill("#cb-back-date", day)
    page.fill("#cb-back-time", time)
    settled(page)


def trip_rows(service) -> list[dict]:
    with sqlite3.connect(service.database) as database:
        database.row_factory = sqlite3.Row
        rows = database.execute(
            "SELECT id, reference, status, origin, destination, pickup_at, flight_number, amount_cents, "
            "way_out_id FROM booking_booking ORDER BY id DESC LIMIT 2"
        ).fetchall()
    return [dict(row) for row in reversed(rows)]


def test_a_return_trip_is_priced_as_two_rides_and_paid_at_once(open_tab, service, axe):
    tab = open_tab()
    page = tab.page
    page.goto(service.base + "/en/")
    fill_ride(page)
    one_way = text(page, "[data-price-for=executive]")
    assert page.is_hidden("#cb-way-back") and "Way back" not in text(page, "#cb-quote")

    return_trip(page)
    page.wait_for_selector("#cb-trip-total")
    way_out = text(page, "#cb-lines-out")
    way_back = text(page, "#cb-lines-back")
    total = text(page, "#cb-trip-total")
    assert re.search(r"Way out: \d+ \w+ \d{4}, 10:00\b", way_out), way_out
    assert re.search(rf"Way back: {int(BACK_DAY[8:])} \w+ {BACK_DAY[:4]}, 18:30", way_back), way_back
    out_price = euros(re.search(r"Way out\t(\S+)", way_out)[1])
    back_price = euros(re.search(r"Way back\t(\S+)", way_back)[1])
    trip_price = euros(re.search(r"Total for both rides\t(\S+)", total)[1])
    assert out_price == euros(one_way) and back_price > 0
    assert trip_price == round(out_price + back_price, 2)
    assert "Distance" in way_back and "VAT" in way_back  # the way back's own lines
    assert euros(text(page, "[data-price-for=executive]")) == trip_price  # the class carries both rides
    # The way back starts at the airport: its flight is asked for, as the way out's would be.
    page.fill("#cb-back-flight", "OS 88")
    fill_contact(page)
    assert euros(text(page, "#cb-pay")) == trip_price
    assert axe(page) == []
    tab.screenshot("return-trip-form")
    page.click("#cb-pay")

    pay_in_the_sandbox(page, service)
    assert "Thank you – your booking is paid" in text(page, "h1")
    tab.screenshot("return-trip-paid")
    out, back = trip_rows(service)
    assert (out["status"], back["status"]) == ("paid", "paid")
    assert back["way_out_id"] == out["id"] and out["way_out_id"] is None
    assert (back["origin"], back["destination"]) == (out["destination"], out["origin"])
    assert back["flight_number"] == "OS 88"
    assert out["amount_cents"] + back["amount_cents"] == round(trip_price * 100)
    assert back["amount_cents"] == round(back_price * 100)
    assert tab.problems == []


def test_without_the_box_the_page_sends_no_way_back(open_tab, service):
    tab = open_tab()
    page = tab.page
    sent = []
    page.on("request", lambda request: request.url.endswith("/api/page/checkout") and sent.append(request))
    page.goto(service.base + "/en/")
    fill_ride(page)
    return_trip(page)
    page.check("input[name=kind][value=hourly]")  # a hire books its way back on its own
    assert page.is_hidden("#cb-return") and page.is_hidden("#cb-way-back")
    page.check("input[name=kind][value=transfer]")
    page.get_by_role("checkbox", name="Return trip").uncheck()  # changed their mind
    assert page.is_hidden("#cb-way-back")
    settled(page)
    assert page.locator("#cb-lines-back, #cb-trip-total").count() == 0
    one_way = text(page, "[data-price-for=executive]")
    fill_contact(page)
    assert text(page, "#cb-pay") == f"Pay {one_way}"
    page.click("#cb-pay")
    pay_in_the_sandbox(page, service)
    body = json.loads(sent[0].post_data)
    assert "wayBack" not in body["bookingData"] and body["amount"] == round(euros(one_way) * 100)
    ride = trip_rows(service)[-1]  # the newest
    assert ride["status"] == "paid" and ride["way_out_id"] is None
    with sqlite3.connect(service.database) as database:
        assert database.execute(
            "SELECT count(*) FROM booking_booking WHERE way_out_id = ?", (ride["id"],)
        ).fetchone() == (0,)
    assert tab.problems == []


def test_a_way_back_before_the_way_out_arrives_is_said_at_once_and_nothing_stored(open_tab, service, axe):
    tab = open_tab()
    page = tab.page
    page.goto(service.base + "/en/")
    before = latest_booking(service)
    fill_ride(page)  # 10:00, about 25 minutes to the airport
    return_trip(page, day=pickup_day(), time="10:05")
    error = page.wait_for_selector("#cb-back-time-error:not([hidden])")
    assert re.match(
        r"The way back's pickup must be after the way out arrives \(.*, 10:\d\d\)\.$", error.inner_text()
    )
    assert page.get_attribute("#cb-back-time", "aria-invalid") == "true"
    fill_contact(page)
    page.click("#cb-pay")  # refused here, never sent
    page.wait_for_selector("#cb-form-error:not([hidden])")
    assert text(page, "#cb-form-error") == "Please check the marked fields."
    assert axe(page) == []
    tab.screenshot("return-trip-too-early")
    page.fill("#cb-back-time", "18:00")  # later that day: fine
    page.wait_for_selector("#cb-back-time-error", state="hidden")
    assert latest_booking(service) == before
    assert tab.problems == []


def test_the_servers_refusal_of_an_early_way_back_is_said_beside_it_in_german(open_tab, service):
    """The page's route may be quicker than the server's (traffic): the checkout's refusal is shown in the
    traveller's language beside the way back's time, with the arrival the server found."""
    tab = open_tab(locale="de-DE", viewport=PHONE)
    page = tab.page

    def quicker_way_out(route):  # the page's quote of the way out says a one-minute drive
        answer = route.fetch()
        if "from=Hotel+Sacher" not in route.request.url:
            return route.fulfill(response=answer)
        data = answer.json()
        arrival = data["route"]["estimatedArrival"]  # the pickup's day, at 10:01
        data["route"]["duration"], data["route"]["estimatedArrival"] = (
            60,
            f"{arrival[:11]}10:01:00{arrival[19:]}",
        )
        route.fulfill(response=answer, json=data)

    page.route(re.compile(r"/api/page/quote\?"), quicker_way_out)
    page.goto(service.base + "/de/")
    before = latest_booking(service)
    fill_ride(page)
    # the German labels
    assert page.get_by_role("checkbox", name="Hin- und Rückfahrt").is_visible()
    return_trip(page, day=pickup_day(), time="10:10")
    assert text(page, "#cb-way-back legend") == "Rückfahrt"
    assert page.get_by_label("Datum der Rückfahrt").input_value() == pickup_day()
    assert page.get_by_label("Uhrzeit der Rückfahrt (Wien)").input_value() == "10:10"
    assert page.get_by_label("Flugnummer für die Rückfahrt (optional)").is_visible()
    assert "Gesamt für beide Fahrten" in text(page, "#cb-trip-total")
    assert text(page, "#cb-lines-out caption").startswith("Hinfahrt: ")
    assert text(page, "#cb-lines-back caption").startswith("Rückfahrt: ")
    assert page.is_hidden("#cb-back-time-error")  # the page thinks the way out is there by 10:01
    fill_contact(page)
    page.click("#cb-pay")

    error = page.wait_for_selector("#cb-back-time-error:not([hidden])")
    assert re.match(
        r"Die Abholung der Rückfahrt muss nach der Ankunft der Hinfahrt liegen \(\d+\. \w+ \d{4}, 10:2\d\)\.$",
        error.inner_text(),
    ), error.inner_text()
    assert text(page, "#cb-form-error") == "Bitte prüfen Sie die markierten Felder."
    assert page.is_enabled("#cb-pay")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scrolling
    tab.screenshot("return-trip-refused-german")
    assert latest_booking(service) == before
    # Chromium's own line for the refusal the page shows: the page itself reports nothing
    assert [problem for problem in tab.problems if "/api/page/checkout)" not in problem] == []
    assert len(tab.problems) == 1 and REFUSED in tab.problems[0]


def test_a_return_trip_survives_a_reload_and_a_cancelled_payment(open_tab, service):
    tab = open_tab()
    page = tab.page
    page.goto(service.base + "/en/")
    fill_ride(page, time="11:30")
    return_trip(page, time="19:00")
    page.fill("#cb-back-flight", "OS 88")
    fill_contact(page)
    page.reload()  # the choices are kept in the browser
    settled(page)
    assert page.is_checked("#cb-return") and page.input_value("#cb-back-time") == "19:00"
    page.wait_for_selector("#cb-trip-total")
    page.check("#cb-terms")
    page.click("#cb-pay")
    page.wait_for_url(re.compile(r"/booking/sandbox/"))
    page.click("#cancel")
    page.wait_for_url(re.compile(r"/booking/cancel\?booking="))
    assert {row["status"] for row in trip_rows(service)} == {"expired"}  # both rides, one page
    page.evaluate("localStorage.clear()")  # the form is filled from the booking itself
    page.click("#resume")
    settled(page)
    assert page.is_checked("#cb-return") and page.is_visible("#cb-way-back")
    assert (page.input_value("#cb-back-date"), page.input_value("#cb-back-time")) == (BACK_DAY, "19:00")
    assert page.input_value("#cb-back-flight") == "OS 88"
    page.wait_for_selector("#cb-trip-total")
    tab.screenshot("return-trip-resumed")
    assert tab.problems == []
