"""The traveller's manage page on the ride's day, in a real Chromium on a 390×844 phone: booked and
paid as a traveller does, the ride assigned and then moved on by the chauffeur (dispatch/ride_day.py, run in
a manage.py process on the served database, as the job page would), and the page follows each move by
itself, without a reload: its script asks for the ride panel every 30 s (Playwright's clock stands in for
the wait) and stops once the ride is over. In German, axe-clean, with no console error."""

import re
import textwrap

from tests.browser.conftest import PHONE
from tests.browser.test_traveller_a11y import checkout
from tests.processes import manage

MOVES = [
    ("accepted", "Ihr Chauffeur hat die Fahrt angenommen."),
    ("on_the_way", "Ihr Chauffeur ist auf dem Weg zum Abholort."),
    ("arrived", "Ihr Chauffeur ist am Abholort angekommen."),
    ("on_board", "Sie sind an Bord. Gute Fahrt!"),
    ("completed", "Die Fahrt ist abgeschlossen. Danke, dass Sie mit uns gefahren sind."),
]
SHOWN_TIME = re.compile(r"^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}$|^\d{2}:\d{2}$")


def on_the_service(service, code: str) -> str:
    """`code` run by manage.py shell on the served database (the live settings); what it prints."""
    done = manage(
        "shell",
        "-c",
        textwrap.dedent(code),
        DJANGO_SETTINGS_MODULE="tests.browser.live_settings",
        DATABASE_URL=f"sqlite:///{service.database}",
        DJANGO_DEBUG="true",
        PAYMENT_PROVIDER="sandbox",
        PUBLIC_BASE_URL=service.base,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


def assign(service, reference: str) -> None:
    on_the_service(
        service,
        f"""
        from booking.models import Booking
        from dispatch import assignment
        from fleet.models import Driver, Vehicle
        from pricing.models import VehicleClass
        booking = Booking.objects.get(reference="{reference}")
        karl = Driver.objects.create(name="Karl Huber", phone="+43 660 1112223", languages="de, en")
        car = Vehicle.objects.create(plate="W-{reference[-6:]}", model="Mercedes E-Class", seats=3, luggage=3,
                                     vehicle_class=VehicleClass.objects.get(code=booking.vehicle_class))
        assignment.assign(booking.pk, driver_id=karl.pk, vehicle_id=car.pk, actor="eva (staff)")
    """,
    )


def advance(service, reference: str, state: str) -> None:
    on_the_service(
        service,
        f"""
        import time_machine
        from django.utils import timezone
        from booking.models import Booking
        from dispatch import ride_day
        booking = Booking.objects.get(reference="{reference}")
        # "completed" keeps to the ride's clock: not before the pickup time
        with time_machine.travel(max(timezone.now(), booking.pickup_at), tick=False):
            ride_day.advance(booking.pk, "{state}", driver=booking.driver, actor="Karl Huber (chauffeur)")
    """,
    )


def current_step(page) -> tuple[str, str]:
    step = page.locator("#ride-steps li[aria-current=step]")
    return step.get_attribute("data-state"), step.locator(".cb-ride-time").inner_text()


def test_the_travellers_phone_follows_the_chauffeur_without_a_reload(open_tab, service, axe):
    tab = open_tab(locale="de-DE", viewport=PHONE)
    page = tab.page
    page.clock.install()  # the page's timers wait for the test, not 30 real seconds
    page.goto(checkout(service, minutes=35))
    page.click("#pay")
    page.wait_for_url(re.compile(r"/booking/success\?session_id="))
    reference = page.locator("#reference").inner_text()
    assign(service, reference)
    page.click("#manage")
    page.wait_for_url(re.compile(r"/booking/manage\?booking="))

    assert page.locator("#driver").inner_text() == "Ihr Chauffeur: Karl Huber, +43 660 1112223"
    assert page.locator("#car").inner_text() == f"Ihr Wagen: Mercedes E-Class, Kennzeichen W-{reference[-6:]}"
    assert (
        page.locator("#ride-now").inner_text().startswith("Ihr Chauffeur hat die Fahrt noch nicht angenommen")
    )
    assert page.locator("#ride-steps li[aria-current]").count() == 0
    asked = []
    page.on("request", lambda request: "/booking/manage/ride?" in request.url and asked.append(request.url))
    page.evaluate("window.sameDocument = true")  # gone if the page reloads

    for number, (state, sentence) in enumerate(MOVES):
        advance(service, reference, state)
        page.clock.fast_forward(31_000)
        page.wait_for_selector(f'#ride-steps li[data-state="{state}"][aria-current="step"]')
        assert page.locator("#ride-now").inner_text() == sentence
        shown, time = current_step(page)
        assert shown == state and SHOWN_TIME.match(time), time
        reached = page.locator("#ride-steps li.cb-ride-done").count()
        assert reached == number + 1  # the earlier moves keep their times; the later ones are to come
        if state == "on_the_way":
            tab.screenshot("ride-day-traveller-on-the-way")
            assert axe(page) == []
    assert page.evaluate("window.sameDocument") is True
    assert page.locator("#status").inner_text() == "Fahrt abgeschlossen"  # the booking's state follows too

    asked_before = len(asked)
    page.clock.fast_forward(120_000)  # the ride is over: the page has stopped asking
    page.wait_for_timeout(300)
    assert len(asked) == asked_before and asked_before >= len(MOVES)
    page.reload()  # a reload shows the same, and starts no script
    assert current_step(page)[0] == "completed" and page.locator("#ride[data-refresh]").count() == 0
    tab.screenshot("ride-day-traveller-completed")
    assert axe(page) == []
    assert tab.problems == []


def test_the_text_messages_box_on_the_phone(open_tab, service, axe):
    tab = open_tab(locale="de-DE", viewport=PHONE)
    page = tab.page
    page.goto(checkout(service, minutes=40))
    page.click("#pay")
    page.wait_for_url(re.compile(r"/booking/success\?session_id="))
    page.click("#manage")
    page.wait_for_url(re.compile(r"/booking/manage\?booking="))
    assert (
        page.locator("#ride-now").inner_text().startswith("Vor der Fahrt wird Ihnen ein Chauffeur zugeteilt")
    )
    page.check("#sms")
    page.click("#sms-save")
    page.wait_for_selector("#outcome")
    assert (
        page.locator("#outcome").inner_text() == "Sie erhalten die Nachrichten zu Ihrer Fahrt auch per SMS."
    )
    assert page.locator("#sms").is_checked()
    assert axe(page) == []
    assert tab.problems == []
