"""The back office in a real Chromium (Playwright): a dispatcher signs in, finds the ride nobody drives on
the dispatch board, assigns it on its booking page, and sees it on the driver's lane; a customer cancels
a ride on their own page. Skipped, with the reason, where no Chromium or Playwright is installed."""

import re

import pytest

from tests.back_office import back_office, browser_missing, chromium, sign_in
from tests.processes import manage

pytestmark = pytest.mark.skipif(browser_missing() is not None, reason=browser_missing() or "")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with back_office(tmp_path_factory.mktemp("back_office")) as running:
        yield running


def test_a_dispatcher_assigns_the_ride_nobody_drives(served):
    with chromium() as page:
        sign_in(page, served.base)
        page.goto(f"{served.base}/admin/booking/booking/dispatch/")
        waiting = page.locator("tr.unassigned a.ride.needs-driver").first
        reference = re.search(r"CB-[A-Z0-9]{6}", waiting.inner_text())[0]
        waiting.click()
        page.wait_for_selector("#assign-form")
        assert page.locator("#state").inner_text() == "paid"
        page.select_option("#id_driver", label="Stefan Berger")
        page.select_option("#id_vehicle", index=1)  # 0 is the empty choice
        page.click("#assign")
        page.wait_for_selector(".messagelist .success")
        assert f"{reference}: Stefan Berger with" in page.locator(".messagelist").inner_text()
        assert page.locator("#state").inner_text() == "confirmed"
        page.goto(f"{served.base}/admin/booking/booking/dispatch/?range=next7")
        lane = page.locator("tr.driver", has_text="Stefan Berger")
        assert reference in lane.inner_text()


CUSTOMERS_LINK = """
from django.utils import timezone
from booking.links import manage_url
from booking.models import Booking
ride = Booking.objects.filter(status="paid", pickup_at__gt=timezone.now()).order_by("pickup_at").last()
print(ride.reference, manage_url(ride.reference))
"""


def test_a_customer_cancels_on_their_own_page(served):
    printed = manage("shell", "-c", CUSTOMERS_LINK, **served.env).stdout.splitlines()[-1]
    reference, link = printed.split()
    with chromium(width=420, height=900) as page:  # a phone
        page.goto(link)
        assert page.locator("#reference").inner_text() == reference
        page.once("dialog", lambda dialog: dialog.dismiss())  # "Really cancel?" — no
        page.click("#cancel-booking")
        page.reload()
        assert page.locator("#cancel-booking").count() == 1  # nothing was sent
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#cancel-booking")
        page.wait_for_selector("#outcome")
        assert page.locator("#cancel-booking").count() == 0
        assert page.locator("#status").inner_text() in ("Cancelled", "Storniert")
