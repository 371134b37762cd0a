"""A chauffeur on a 390×844 phone opens the job link from the job message and takes the ride through every
state: accepted → on the way → arrived → passenger on board → completed, tapping the one button offered
each time, the page saying from when a no-show is possible; on a 360 px phone, a ride of tomorrow asks
"This ride is on … — start now?" before an early "on the way" (with the script and without), and then says
from when "arrived" is possible. No console error, no refusal of the Content-Security-Policy, and axe-core
finds nothing, in German and English. The back office runs as in tests/back_office.py (the demo working
day); the ride's pickup is set for each case (a late chauffeur, a ride of tomorrow)."""

import re

import pytest

from tests.back_office import back_office
from tests.browser.conftest import ARTIFACTS, PHONE, watch_console
from tests.processes import manage

# A confirmed demo ride of a driver, its pickup set (PICKUP: a moment), and a fresh link to it (as the
# assignment's e-mail would carry).
ISSUE_LINK = """
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo
from django.utils import timezone
from booking.models import Booking
from dispatch import job_links
booking = Booking.objects.filter(
    status="confirmed", driver__isnull=False, ride_steps__isnull=True
).order_by("-pickup_at").first()
booking.pickup_at = PICKUP
booking.save(update_fields=["pickup_at"])
_link, key = job_links.issue(booking, booking.driver)
print("LINK", booking.reference, key)
"""
LATE = "timezone.now() - timedelta(minutes=2)"  # the chauffeur comes late: every move is open at once
TOMORROW = "(timezone.localtime() + timedelta(days=1)).replace(hour=10, minute=0, second=0, microsecond=0)"
PHONE_360 = {"width": 360, "height": 740}
STEPS = [
    ("accepted", "Accept the job", "Auftrag annehmen"),
    ("on_the_way", "I am on my way", "Ich bin unterwegs"),
    ("arrived", "I have arrived", "Ich bin angekommen"),
    ("on_board", "Passenger on board", "Fahrgast an Bord"),
    ("completed", "Ride completed", "Fahrt abgeschlossen"),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with back_office(tmp_path_factory.mktemp("job_page")) as running:
        yield running


def issue_link(served, pickup: str = LATE) -> tuple[str, str]:
    done = manage("shell", "-c", ISSUE_LINK.replace("PICKUP", pickup), **served.env)
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("LINK ")]  # the shell says more
    _marker, reference, key = line.split()
    return reference, key


def phone(chromium, language: str, viewport: dict, **options):
    context = chromium.new_context(
        viewport=viewport,
        locale="de-AT" if language == "de" else "en-GB",
        timezone_id="Europe/Vienna",
        is_mobile=True,
        has_touch=True,
        **options,
    )
    context.set_default_timeout(15_000)
    return context


def open_job(context, served, key: str, language: str):
    """The job page in a new tab: the page, its console's errors, and its address."""
    page = context.new_page()
    errors = watch_console(page)
    job = f"{served.base}/chauffeur/job/{key}/?lang={language}"
    page.goto(job)
    return page, errors, job


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_chauffeur_takes_a_job_through_every_state_on_a_phone(served, chromium, axe, language):
    reference, key = issue_link(served)
    context = phone(chromium, language, PHONE)
    try:
        page, errors, job = open_job(context, served, key, language)
        assert page.get_attribute("html", "lang") == language
        assert reference in page.inner_text("h1")
        assert page.locator("#passenger-phone").get_attribute("href").startswith("tel:")
        assert (
            page.locator("#navigate")
            .get_attribute("href")
            .startswith("https://www.google.com/maps/dir/?api=1")
        )
        # Nothing is wider than the phone: no sideways scrolling.
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert axe(page) == []
        for state, english, german in STEPS:
            offered = page.locator("#moves button")
            assert offered.count() == 1, page.inner_text("#moves")  # the next state only
            assert offered.inner_text() == (german if language == "de" else english)
            box = offered.bounding_box()
            assert box["height"] >= 48 and box["width"] >= PHONE["width"] - 40  # a thumb's target
            offered.tap()
            page.wait_for_selector(".jp-message.success")
            assert page.url == job
            assert page.locator("#steps li.current").count() == 1
            assert re.search(r"\d\d:\d\d", page.locator("#steps li.current").inner_text())
            if state == "arrived":  # the included wait: from when a no-show is possible
                said = "„Nicht erschienen“ möglich ab" if language == "de" else "“No-show” possible from"
                assert re.fullmatch(rf"{said} \d\d:\d\d\.", page.inner_text("#possible-from"))
            assert axe(page) == [], state
        assert page.locator("#moves button").count() == 0
        assert page.locator("#no-moves").is_visible()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"job-page-done-{language}.png", full_page=True)
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize(
    ("language", "script", "question", "not_yet", "arrival"),
    [
        (
            "en",
            True,
            r"This ride is on \w{3} \d\d\.\d\d\.\d{4} at 10:00 — start now\?",
            "No, not yet",
            r"“Arrived” possible from \w{3} \d\d\.\d\d\.\d{4}, 08:30\.",
        ),
        (
            "de",
            True,
            r"Diese Fahrt ist am \w{2}\., \d\d\.\d\d\.\d{4} um 10:00 – jetzt losfahren\?",
            "Nein, noch nicht",
            r"„Angekommen“ möglich ab \w{2}\., \d\d\.\d\d\.\d{4}, 08:30\.",
        ),
        (
            "en",
            False,
            r"This ride is on \w{3} \d\d\.\d\d\.\d{4} at 10:00 — start now\?",
            "No, not yet",
            r"“Arrived” possible from \w{3} \d\d\.\d\d\.\d{4}, 08:30\.",
        ),
    ],
    ids=["en", "de", "en-without-script"],
)
def test_a_ride_of_tomorrow_asks_before_an_early_start_on_a_360_px_phone(
    served, chromium, axe, language, script, question, not_yet, arrival
):
    _reference, key = issue_link(served, TOMORROW)
    context = phone(chromium, language, PHONE_360, java_script_enabled=script)
    try:
        page, errors, job = open_job(context, served, key, language)
        page.locator("#moves button").tap()  # accept the job: no clock
        page.wait_for_selector(".jp-message.success")
        assert page.locator("#moves button").count() == 1  # the early start only, set apart
        assert page.get_attribute("#moves button", "id") == "move-early-start"
        assert "jp-outline" in page.get_attribute("#moves button", "class")
        assert re.search("08:30", page.inner_text("#possible-from"))
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_360["width"]
        if script:
            assert axe(page) == []

        page.locator("#move-early-start").tap()  # asked first: nothing moved yet
        page.wait_for_selector("#confirm-start")
        assert re.fullmatch(question, page.inner_text("#confirm-start-question"))
        assert page.locator("#ride-state").inner_text() == ("angenommen" if language == "de" else "accepted")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_360["width"]
        if script:
            assert axe(page) == []
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"job-page-early-start-{language}.png", full_page=True)
        page.get_by_text(not_yet).tap()  # no: back, nothing changed
        page.wait_for_selector("#move-early-start")
        assert page.url == job and page.locator("#confirm-start").count() == 0

        page.locator("#move-early-start").tap()
        page.locator("#confirm-early-start").tap()  # yes: on the way now
        page.wait_for_selector(".jp-message.success")
        assert page.url == job
        assert page.locator("#ride-state").inner_text() == ("unterwegs" if language == "de" else "on the way")
        assert page.locator("#moves button").count() == 0  # no "arrived" a day early
        assert re.fullmatch(arrival, page.inner_text("#possible-from"))
        if script:
            assert axe(page) == []
        assert errors == []
    finally:
        context.close()


def test_a_link_that_opens_nothing_is_a_plain_page_without_errors(served, chromium, axe):
    context = chromium.new_context(viewport=PHONE, locale="de-AT", timezone_id="Europe/Vienna")
    try:
        page = context.new_page()
        errors = watch_console(page)
        response = page.goto(f"{served.base}/chauffeur/job/{'x' * 43}/")
        assert response.status == 404
        assert page.get_attribute("html", "lang") == "de"
        assert page.inner_text("h1") == "Fahrt nicht gefunden"
        assert axe(page) == []
        # The one line Chromium logs for any page answered 404 (the answer this page must give); nothing else.
        assert [error for error in errors if "responded with a status of 404" not in error] == []
    finally:
        context.close()
