"""The dispatch board follows the ride's day without a reload, in a real Chromium against the served back
office (tests/back_office.py: the demo working day): a chauffeur's move made in another process shows on
the open board at its next refresh, the page never navigates, the search field keeps its focus and text and
the page its scroll position; a hidden tab asks nothing until it is shown again. No console error, no
refusal of the Content-Security-Policy, and axe-core finds nothing. The page's timers run on Playwright's
clock, so the test need not wait the refresh's 20 seconds."""

import re

import pytest
from playwright.sync_api import expect

from tests.back_office import back_office, sign_in
from tests.browser.conftest import ARTIFACTS, DESKTOP
from tests.processes import manage

BOARD = "/admin/booking/booking/dispatch/?range=next7"
REFRESH_MS = 21_000  # a little more than dispatch.admin.board.REFRESH_SECONDS


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with back_office(tmp_path_factory.mktemp("board_live")) as running:
        yield running


def advance(served, pk: int, state: str) -> None:
    """A chauffeur's move, made in a process of its own on the served database (as the job page would)."""
    code = (
        "from booking.models import Booking; from dispatch import ride_day; "
        f"ride_day.advance({pk}, {state!r}, driver=None, actor='Karl Huber (chauffeur)', "
        f"confirmed_pickup=Booking.objects.get(pk={pk}).pickup_at)"  # a ride ahead: started early
    )
    done = manage("shell", "-c", code, **served.env)
    assert done.returncode == 0, done.stdout + done.stderr


def hide(page, hidden: bool) -> None:
    """The tab hidden or shown again, as the browser tells the page (a headless tab is always shown)."""
    page.evaluate(
        "hidden => { Object.defineProperty(document, 'hidden', {value: hidden, configurable: true});"
        " document.dispatchEvent(new Event('visibilitychange')); }",
        hidden,
    )


def test_the_board_shows_a_move_without_a_reload(served, chromium, console_errors, axe):
    context = chromium.new_context(
        locale="en-GB", viewport={**DESKTOP, "height": 500}, timezone_id="Europe/Vienna"
    )
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        errors = console_errors(page)
        sign_in(page, served.base)
        page.clock.install()
        navigations = []
        page.on("framenavigated", lambda frame: frame == page.main_frame and navigations.append(frame.url))
        page.goto(served.base + BOARD)
        navigations.clear()
        live_requests = []
        page.on("request", lambda request: "part=live" in request.url and live_requests.append(request.url))

        card = page.locator("tr.driver a.ride.confirmed").first
        pk = int(card.get_attribute("id").removeprefix("ride-"))
        assert card.locator(".ride-state").inner_text() == "not accepted yet"
        assert re.fullmatch(r"updated \d\d:\d\d", page.locator("#updated").inner_text())
        page.focus("#search input[type=search]")
        page.keyboard.type("Sach")  # typed, not sent: the refresh keeps the shown search
        page.evaluate("window.scrollTo(0, 200)")  # then scrolled down, the field still focused
        assert page.evaluate("window.scrollY") == 200

        advance(served, pk, "accepted")
        page.clock.run_for(REFRESH_MS)
        moved = page.locator(f"#ride-{pk} .ride-state")
        expect(moved).to_have_text(re.compile(r"^accepted · \d\d:\d\d$"))
        assert live_requests == [f"{served.base}/admin/booking/booking/dispatch/?range=next7&q=&part=live"]
        assert page.evaluate("document.activeElement.name") == "q"
        assert page.input_value("#search input[type=search]") == "Sach"
        assert page.evaluate("window.scrollY") == 200

        # A hidden tab asks nothing; shown again, it refreshes at once.
        hide(page, True)
        advance(served, pk, "on_the_way")
        page.clock.run_for(3 * REFRESH_MS)
        assert len(live_requests) == 1
        expect(moved).to_have_text(re.compile(r"^accepted"))
        hide(page, False)
        expect(moved).to_have_text(re.compile(r"^on the way · \d\d:\d\d$"))
        assert len(live_requests) == 2
        assert page.locator(f"#ride-{pk}.late").count() == 0  # on the way: not late, whatever the time

        assert navigations == [] and page.url == served.base + BOARD  # never reloaded
        page.clock.resume()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=ARTIFACTS / "dispatch-board-live.png", full_page=True)
        assert errors == []
        assert axe(page) == []
    finally:
        context.close()


def test_a_signed_out_board_keeps_what_it_shows_and_says_so(served, chromium, console_errors):
    """The session ends (signed out in another tab): the refresh is refused, the board stays, a message
    says it could not be updated; no uncaught error."""
    context = chromium.new_context(locale="de-AT", viewport=DESKTOP, timezone_id="Europe/Vienna")
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        errors = console_errors(page)
        sign_in(page, served.base)
        page.clock.install()
        page.goto(served.base + BOARD)
        shown = page.locator("#board").inner_text()
        context.clear_cookies()
        page.clock.run_for(REFRESH_MS)
        expect(page.locator("#refresh-problem")).to_have_text(re.compile("konnte nicht aktualisiert werden"))
        assert page.locator("#board").inner_text() == shown
        assert errors == []
    finally:
        context.close()
