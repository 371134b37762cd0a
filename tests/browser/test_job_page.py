"""A chauffeur on a 390×844 phone opens the job link from the job message and takes the ride through every
state: accepted → on the way → arrived → passenger on board → completed, tapping the one button offered
each time; no console error, no refusal of the Content-Security-Policy, and axe-core finds nothing, in
German and English. The back office runs as in tests/back_office.py (the demo working day)."""

import re

import pytest

from tests.back_office import back_office
from tests.browser.conftest import ARTIFACTS, PHONE, watch_console
from tests.processes import manage

# A confirmed demo ride of a driver, and a fresh link to it (as the assignment's e-mail would carry).
ISSUE_LINK = """
from django.utils import timezone
from booking.models import Booking
from dispatch import job_links
booking = Booking.objects.filter(
    status="confirmed", driver__isnull=False, ride_steps__isnull=True, pickup_at__gte=timezone.now()
).order_by("pickup_at").first()
_link, key = job_links.issue(booking, booking.driver)
print("LINK", booking.reference, key)
"""
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


def issue_link(served) -> tuple[str, str]:
    done = manage("shell", "-c", ISSUE_LINK, **served.env)
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("LINK ")]  # the shell says more
    _marker, reference, key = line.split()
    return reference, key


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_chauffeur_takes_a_job_through_every_state_on_a_phone(served, chromium, axe, language):
    reference, key = issue_link(served)
    context = chromium.new_context(
        viewport=PHONE, locale="de-AT" if language == "de" else "en-GB", timezone_id="Europe/Vienna",
        is_mobile=True, has_touch=True,
    )  # fmt: skip
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        errors = watch_console(page)
        job = f"{served.base}/chauffeur/job/{key}/?lang={language}"
        page.goto(job)
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
            assert axe(page) == [], state
        assert page.locator("#moves button").count() == 0
        assert page.locator("#no-moves").is_visible()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"job-page-done-{language}.png", full_page=True)
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
