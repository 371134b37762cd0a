"""The whole day of a return trip at human speed, in a real Chromium against the live gunicorn: a traveller
books a transfer with a child seat and a stop on the way out, ticks "Return trip" for a way back two days
later, sees both rides' prices and their total and pays both on one sandbox page. A dispatcher assigns each
ride a chauffeur and car of its own on its back-office page, reaching the way back from the way out's "Return
trip" row. On two phones the chauffeurs open the links their job messages carry: each page shows its own
ride's stops and extras and nothing of the other's. The way out's day has come (its pickup set to two minutes
ago, as the job page's tests do: the served clock cannot travel) and its chauffeur takes it to completed; the
way back, days ahead, can be accepted and no more. The traveller goes from the way out's page to the way
back's by its "Return trip" link and cancels it for free: its whole share is refunded in the sandbox with a
credit note, and the way out stays completed with its invoice, the one payment carrying both shares. No page
reports a console error; the manage pages with the Return trip row are axe-clean."""

import re
import sqlite3
import textwrap

import pytest

from tests.back_office import sign_in
from tests.browser.conftest import PHONE, SECRET_KEY, pickup_day, watch_console
from tests.browser.test_booking_page import (
    choose_place,
    fill_contact,
    fill_ride,
    pay_in_the_sandbox,
    settled,
    text,
)
from tests.browser.test_job_page import STEPS, phone
from tests.browser.test_return_trip_page import euros, return_trip
from tests.processes import manage

STAFF, PASSWORD = "return-trip-dispatcher", "a-long-browser-test-password"
OUT_DAY, BACK_DAY = pickup_day(3), pickup_day(5)  # fill_ride's day, and two days later
# Each ride's chauffeur (the first language is their job page's) and car, which carries a child seat.
CHAUFFEURS = {
    "out": ("Lukas Steiner", "+43 660 2223334", "de, en", "W-RT101A"),
    "back": ("Mira Novak", "+43 660 5556667", "en, de", "W-RT202B"),
}
FLEET = """
from django.contrib.auth import get_user_model
from fleet.models import Driver, Vehicle, VehicleEquipment
from pricing.models import Extra, VehicleClass
get_user_model().objects.create_superuser("{staff}", "dispatch@example.com", "{password}")
executive, seat = VehicleClass.objects.get(code="executive"), Extra.objects.get(code="child-seat")
for name, phone, languages, plate in {chauffeurs}:
    Driver.objects.create(name=name, phone=phone, languages=languages)
    car = Vehicle.objects.create(plate=plate, model="Mercedes E-Class", seats=3, luggage=3, vehicle_class=executive)
    VehicleEquipment.objects.create(vehicle=car, extra=seat, quantity=1)
"""
# The way out's day has come: its pickup two minutes ago, as tests/browser/test_job_page.py sets a ride's (the
# served clock is the real one, and "completed" keeps to the pickup time).
THE_DAY_HAS_COME = """
from datetime import timedelta
from django.utils import timezone
from booking.models import Booking
ride = Booking.objects.get(reference="{reference}")
ride.pickup_at = timezone.now() - timedelta(minutes=2)
ride.save(update_fields=["pickup_at"])
"""
# The link the assignment's job message carries (its key is the link's signature, written when it is sent).
JOB_LINK = """
from dispatch import job_links
from dispatch.models import JobLink
link = JobLink.objects.get(booking__reference="{reference}", revoked_at__isnull=True)
print(job_links.job_url(job_links.key_of(link)))
"""


def on_the_service(service, code: str) -> str:
    """`code` run by manage.py shell on the served database, with the server's settings and secret key; the
    last line it printed."""
    done = manage(
        "shell",
        "--no-imports",
        "-c",
        textwrap.dedent(code),
        DJANGO_SETTINGS_MODULE="tests.browser.live_settings",
        DJANGO_SECRET_KEY=SECRET_KEY,
        DATABASE_URL=f"sqlite:///{service.database}",
        DJANGO_DEBUG="true",
        PAYMENT_PROVIDER="sandbox",
        PUBLIC_BASE_URL=service.base,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return (done.stdout.strip().splitlines() or [""])[-1]


@pytest.fixture(scope="module")
def fleet(service) -> None:
    """A dispatcher, and two chauffeurs with a car each."""
    chauffeurs = list(CHAUFFEURS.values())
    on_the_service(service, FLEET.format(staff=STAFF, password=PASSWORD, chauffeurs=chauffeurs))


def book_and_pay(page, service) -> dict:
    """The traveller's booking page, as a traveller fills it; what the page priced."""
    page.goto(service.base + "/en/")
    fill_ride(page)  # Hotel Sacher to the airport, OUT_DAY at 10:00
    page.click("#cb-add-stop")
    choose_place(page, "stop-1", "Stephansdom")
    stop = page.input_value("#cb-stop-1")
    page.wait_for_selector(f"#cb-quote >> text=Stop 1: {stop}")
    page.select_option("#cb-passengers", "2")
    page.select_option("#cb-luggage", "2")
    page.select_option("#cb-extra-child-seat", "1")  # an extra the page offers
    page.wait_for_selector("#cb-quote >> text=Child seat")
    settled(page)
    return_trip(page, day=BACK_DAY, time="18:30")
    page.wait_for_selector("#cb-trip-total")
    way_out, way_back = text(page, "#cb-lines-out"), text(page, "#cb-lines-back")
    assert f"Stop 1: {stop}" in way_out and "Child seat" in way_out, way_out
    assert "Child seat" in way_back and "Stop" not in way_back, way_back  # the extras go back, the stop not
    assert re.search(rf"Way back: {int(BACK_DAY[8:])} \w+ {BACK_DAY[:4]}, 18:30", way_back), way_back
    out_price = euros(re.search(r"Way out\t(\S+)", way_out)[1])
    back_price = euros(re.search(r"Way back\t(\S+)", way_back)[1])
    total = euros(re.search(r"Total for both rides\t(\S+)", text(page, "#cb-trip-total"))[1])
    assert min(out_price, back_price) > 0 and total == round(out_price + back_price, 2)
    page.fill("#cb-back-flight", "OS 88")
    fill_contact(page)  # with the terms accepted
    assert euros(text(page, "#cb-pay")) == total
    page.click("#cb-pay")

    page.wait_for_url(re.compile(r"/booking/sandbox/"))
    assert euros(text(page, "#pay")) == total  # one page pays both rides
    pay_in_the_sandbox(page, service)
    assert "Thank you – your booking is paid" in text(page, "h1")
    assert euros(re.search(r"two rides, (\S+) together", text(page, "#trip-price"))[1]) == total
    return {"stop": stop, "out": round(out_price * 100), "back": round(back_price * 100)}


def rides(service, reference: str) -> tuple[dict, dict]:
    """The return trip's way out (`reference`) and way back, as stored."""
    with sqlite3.connect(service.database) as database:
        database.row_factory = sqlite3.Row
        out = database.execute("SELECT * FROM booking_booking WHERE reference = ?", (reference,)).fetchone()
        back = database.execute("SELECT * FROM booking_booking WHERE way_out_id = ?", (out["id"],)).fetchone()
    return dict(out), dict(back)


def assign(page, who: str) -> None:
    """On a ride's back-office page: its chauffeur and car, chosen from the lists as staff do."""
    name, _phone, _languages, plate = CHAUFFEURS[who]
    page.wait_for_selector("#assign-form")
    car = page.locator("#id_vehicle option", has_text=plate).inner_text()
    assert "without" not in car, car  # the car carries the booked child seat
    page.select_option("#id_driver", label=name)
    page.select_option("#id_vehicle", label=car)
    page.click("#assign")
    page.wait_for_selector(".messagelist .success")
    assert f"{name} with {plate}" in page.inner_text(".messagelist")
    assert page.inner_text("#state") == "confirmed"


def staff_assign(staff, service, out: dict, back: dict) -> None:
    sign_in(staff, service.base, STAFF, PASSWORD)
    staff.goto(f"{service.base}/admin/booking/booking/dispatch/?range=next7")
    staff.fill("#search input[type=search]", out["reference"])
    staff.press("#search input[type=search]", "Enter")
    staff.wait_for_url(re.compile(r"[?&]q=CB-"))
    staff.locator(f"#ride-{out['id']}").click()
    staff.wait_for_url(re.compile(rf"/admin/booking/booking/{out['id']}/"))
    assign(staff, "out")
    assert back["reference"] in staff.inner_text("#return-trip")
    staff.click("#return-trip a")  # the way back's page, from the way out's
    staff.wait_for_url(re.compile(rf"/admin/booking/booking/{back['id']}/"))
    assert out["reference"] in staff.inner_text("#return-trip")
    assign(staff, "back")


def tap(page, button: str) -> None:
    page.locator(button).tap()
    page.wait_for_selector(".jp-message.success")


def takes_the_way_out_to_completed(page, service, out: dict, back: dict, stop: str) -> None:
    """The way out's chauffeur, whose page is German: every move, one tap each, the pickup's time come."""
    page.goto(on_the_service(service, JOB_LINK.format(reference=out["reference"])))
    assert page.get_attribute("html", "lang") == "de"
    assert page.get_attribute("#job", "data-reference") == out["reference"]
    assert page.inner_text("#stops").startswith(stop)  # its own stop
    assert page.locator("#extras li").all_inner_texts() == ["Kindersitz"]
    assert page.locator("#flight").count() == 0  # the way back's flight is not this ride's
    assert back["reference"] not in page.inner_text("body")  # nothing of the other ride
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for _state, _english, german in STEPS:
        offered = page.locator("#moves button")
        assert offered.count() == 1 and offered.inner_text() == german, page.inner_text("#moves")
        offered.tap()
        page.wait_for_selector(".jp-message.success")
    assert page.locator("#moves button").count() == 0 and page.locator("#no-moves").is_visible()


def accepts_the_way_back(page, service, out: dict, back: dict) -> None:
    """The way back's chauffeur, whose page is English: accepted, and then only an early start is offered
    (the start window opens 90 minutes before its pickup, days ahead)."""
    page.goto(on_the_service(service, JOB_LINK.format(reference=back["reference"])))
    assert page.get_attribute("html", "lang") == "en"
    assert page.get_attribute("#job", "data-reference") == back["reference"]
    assert page.locator("#stops").count() == 0  # the way out's stop is not on the way back
    assert page.locator("#extras li").all_inner_texts() == ["Child seat"]
    assert page.inner_text("#origin").startswith(back["origin"]) and back["origin"] == out["destination"]
    assert page.inner_text("#destination").startswith(out["origin"])
    assert page.inner_text("#flight").splitlines() == ["OS 88", "Flight OS 88 not followed: the pickup stays"]
    assert out["reference"] not in page.inner_text("body")
    tap(page, "#move-accepted")
    assert page.locator("#ride-state").inner_text() == "accepted"
    assert page.locator("#moves button").all_inner_texts() == ["I am on my way (early)"]
    later = page.inner_text("#possible-from")
    assert re.fullmatch(r"“On the way” possible from \w{3} \d\d\.\d\d\.\d{4}, 17:00\.", later), later
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def cancels_the_way_back(page, out: dict, back: dict, axe) -> None:
    """From the success page to the way out's page, and on by its Return trip link to the way back's."""
    page.click("#manage")
    page.wait_for_url(re.compile(r"/booking/manage\?booking="))
    assert page.inner_text("#reference") == out["reference"]
    assert page.inner_text("#status") == "Ride completed"
    assert page.inner_text("#return-trip").startswith(f"The way back, {back['reference']}, is picked up on")
    assert page.locator("#invoice-link").is_visible()
    assert page.locator("#cancel-booking").count() == 0
    assert axe(page) == []
    page.click("#other-ride")
    page.wait_for_url(re.compile(r"/booking/manage\?booking="))
    assert page.inner_text("#reference") == back["reference"]
    assert page.inner_text("#return-trip").startswith(f"This is the way back of {out['reference']} (")
    assert page.inner_text("#other-ride") == "See the way out"
    assert page.locator("#stops").count() == 0
    share = f"€{back['amount_cents'] / 100:,.2f}"
    assert text(page, "#cancel-form p") == f"Cancelling now is free; {share} will be refunded."
    assert axe(page) == []
    page.once("dialog", lambda dialog: dialog.accept())  # "Really cancel the booking?"
    page.click("#cancel-booking")
    page.wait_for_selector("#outcome")
    assert page.inner_text("#outcome") == "The booking is cancelled."
    assert page.inner_text("#status") == "Cancelled"
    assert text(page, "#cancelled").endswith(f"Fee kept: €0.00; refunded: {share}.")
    assert page.locator("#documents .document-link").inner_text().startswith("Credit note ")
    assert page.inner_text("#return-trip").startswith(f"This is the way back of {out['reference']} (")
    assert axe(page) == []


def test_the_whole_day_of_a_return_trip_at_human_speed(open_tab, service, fleet, chromium, axe):
    traveller = open_tab()
    priced = book_and_pay(traveller.page, service)
    out, back = rides(service, text(traveller.page, "#reference"))
    assert (out["status"], back["status"]) == ("paid", "paid")
    assert (out["amount_cents"], back["amount_cents"]) == (priced["out"], priced["back"])
    traveller.screenshot("return-trip-day-paid")

    staff = open_tab()
    staff_assign(staff.page, service, out, back)
    staff.screenshot("return-trip-day-way-back-assigned")

    on_the_service(service, THE_DAY_HAS_COME.format(reference=out["reference"]))
    phones = [phone(chromium, "de", PHONE), phone(chromium, "en", PHONE)]  # two chauffeurs' own phones
    try:
        out_phone, back_phone = (context.new_page() for context in phones)
        problems = {"out": watch_console(out_phone), "back": watch_console(back_phone)}
        takes_the_way_out_to_completed(out_phone, service, out, back, priced["stop"])
        accepts_the_way_back(back_phone, service, out, back)
    finally:
        for context in phones:
            context.close()

    cancels_the_way_back(traveller.page, out, back, axe)
    traveller.screenshot("return-trip-day-way-back-cancelled")
    out, back = rides(service, out["reference"])
    assert out["status"] == "completed" and out["paid_at"] and out["cancelled_at"] is None
    assert back["status"] == "cancelled" and back["cancelled_at"]
    assert None not in (out["driver_id"], back["driver_id"]) and out["driver_id"] != back["driver_id"]
    assert None not in (out["vehicle_id"], back["vehicle_id"]) and out["vehicle_id"] != back["vehicle_id"]
    with sqlite3.connect(service.database) as database:
        trip = (out["id"], back["id"])
        refunds = database.execute(
            "SELECT id, booking_id, amount_cents, status FROM payments_refund WHERE booking_id IN (?, ?)",
            trip,
        ).fetchall()
        notes = database.execute(
            "SELECT booking_id, refund_id, reason, gross_cents, invoice_id FROM payments_creditnote "
            "WHERE booking_id IN (?, ?)",
            trip,
        ).fetchall()
        invoices = database.execute(
            "SELECT id, booking_id, kind, gross_cents FROM payments_invoice WHERE booking_id IN (?, ?) "
            "ORDER BY id",
            trip,
        ).fetchall()
        shares = database.execute(
            "SELECT payment_id, booking_id, amount_cents FROM payments_paymentshare WHERE booking_id IN (?, ?) "
            "ORDER BY booking_id",
            trip,
        ).fetchall()
        payments = database.execute(
            "SELECT id, kind, state, amount_cents FROM payments_payment WHERE id IN "
            "(SELECT payment_id FROM payments_paymentshare WHERE booking_id IN (?, ?))",
            trip,
        ).fetchall()
    ((refund, refunded, refund_cents, refund_state),) = refunds  # the way back's alone: its whole share
    assert (refunded, refund_cents, refund_state) == (back["id"], back["amount_cents"], "succeeded")
    # one invoice lists both rides; the way back's credit note corrects its part of it
    ((invoice, *invoiced),) = invoices
    assert invoiced == [out["id"], "ride", out["amount_cents"] + back["amount_cents"]]
    assert notes == [(back["id"], refund, "cancellation", back["amount_cents"], invoice)]
    ((payment, kind, state, paid),) = payments
    assert (kind, state, paid) == ("checkout", "received", out["amount_cents"] + back["amount_cents"])
    assert shares == [(payment, out["id"], out["amount_cents"]), (payment, back["id"], back["amount_cents"])]
    assert (traveller.problems, staff.problems, problems) == ([], [], {"out": [], "back": []})
