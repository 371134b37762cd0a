"""Two phones in a real Chromium: the chauffeur's, which lets the page read its position (a faked one), and
the traveller's, on the manage page. The chauffeur on the way turns sharing on; the traveller sees the
position and the arrival time, and the map drawn from the configured tile server (a little server of the
test's own, on another origin: the Content-Security-Policy allows it for images). The chauffeur moves;
the traveller's page follows without a reload. After the chauffeur's "passenger on board" the position is
gone from the page and from the database. No console error on either phone, and axe-core finds nothing."""

import http.server
import re
import threading

import pytest

from tests.browser.conftest import PHONE, live_service, watch_console
from tests.browser.test_ride_day_traveller import assign, on_the_service
from tests.browser.test_traveller_a11y import checkout
from tests.processes import free_port

PRATER = {"latitude": 48.21667, "longitude": 16.39583}  # about 3 km from Hotel Sacher
OPERA = {"latitude": 48.20278, "longitude": 16.36889}  # round the corner from it
# The smallest PNG: one transparent pixel, every tile the test's tile server serves.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000105fe02fea70000000049454e44ae426082"
)
ON_THE_WAY = """
from datetime import timedelta
from django.utils import timezone
from booking.models import Booking
from dispatch import job_links, ride_day
booking = Booking.objects.get(reference="REFERENCE")
booking.pickup_at = (timezone.now() + timedelta(minutes=30)).replace(microsecond=0)
booking.save(update_fields=["pickup_at"])
_link, key = job_links.issue(booking, booking.driver)
for state in ("accepted", "on_the_way"):
    ride_day.advance(booking.pk, state, driver=booking.driver, actor="Karl Huber (chauffeur)")
print("LINK", key)
"""


class Tiles(http.server.BaseHTTPRequestHandler):
    asked: list[str] = []

    def do_GET(self):
        Tiles.asked.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(PIXEL)))
        self.end_headers()
        self.wfile.write(PIXEL)

    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="module")
def tiles():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Tiles)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def mapped(tmp_path_factory, tiles):
    with live_service(
        tmp_path_factory.mktemp("positions"),
        "tests.browser.live_settings",
        free_port(),
        MAP_TILE_URL=tiles + "/{z}/{x}/{y}.png",
        MAP_TILE_ATTRIBUTION="© Test tiles",
    ) as running:
        yield running


def phone(chromium, **options):
    context = chromium.new_context(
        viewport=PHONE, locale="en-GB", timezone_id="Europe/Vienna", is_mobile=True, has_touch=True, **options
    )
    context.set_default_timeout(15_000)
    return context


def positions_stored(service) -> str:
    return on_the_service(
        service,
        "from booking.models import ChauffeurPosition\n"
        "print(list(ChauffeurPosition.objects.values_list('latitude', 'longitude')))",
    ).splitlines()[-1]


def test_the_traveller_sees_the_chauffeur_coming_until_on_board(chromium, mapped, tiles, axe):
    traveller_phone = phone(chromium)
    chauffeur_phone = phone(chromium, permissions=["geolocation"], geolocation=PRATER)
    try:
        traveller = traveller_phone.new_page()
        traveller_errors = watch_console(traveller)
        traveller.goto(checkout(mapped, minutes=20))
        traveller.click("#pay")
        traveller.wait_for_url(re.compile(r"/booking/success\?session_id="))
        reference = traveller.locator("#reference").inner_text()
        manage_url = traveller.locator("#manage").get_attribute("href")  # signed with the server's key
        assign(mapped, reference)
        said = on_the_service(mapped, ON_THE_WAY.replace("REFERENCE", reference))
        (line,) = [line for line in said.splitlines() if line.startswith("LINK ")]
        _marker, key = line.split()

        chauffeur = chauffeur_phone.new_page()
        chauffeur_errors = watch_console(chauffeur)
        chauffeur.clock.install()  # the page's 10 s between positions wait for the test
        chauffeur.goto(f"{mapped.base}/chauffeur/job/{key}/?lang=en")
        chauffeur.click("#start-sharing")
        chauffeur.wait_for_selector("#stop-sharing")
        status = chauffeur.locator("#position-status")
        status.filter(has_text="Position sent at").wait_for()
        assert positions_stored(mapped) == f"[({PRATER['latitude']}, {PRATER['longitude']})]"

        traveller.clock.install()
        traveller.goto(re.sub(r"&lang=\w+", "", manage_url) + "&lang=en")
        shown = traveller.locator("#ride-position-text")
        assert shown.inner_text().startswith("Your chauffeur's position at ")
        assert "48.21667, 16.39583" in shown.inner_text()
        assert re.fullmatch(  # the time alone on the pickup's day; its date too the evening before
            r"Your chauffeur should be at the pickup at about (?:\d\d\.\d\d\.\d{4} )?\d\d:\d\d\.",
            traveller.locator("#ride-eta").inner_text(),
        )
        assert traveller.locator("#ride-map").is_visible()
        assert traveller.locator("#ride-map .cb-map-chauffeur").count() == 1
        assert traveller.locator("#ride-map .cb-map-pickup").count() == 1
        traveller.wait_for_function(
            "() => [...document.querySelectorAll('#ride-map img')].every(tile => tile.complete && tile.naturalWidth)"
        )
        assert Tiles.asked and all(re.fullmatch(r"/\d+/\d+/\d+\.png", path) for path in Tiles.asked)
        assert traveller.locator("#ride-map-attribution").inner_text() == "© Test tiles"
        assert axe(traveller) == []
        assert axe(chauffeur) == []
        before = traveller.locator("#ride-map .cb-map-chauffeur").bounding_box()
        traveller.evaluate("window.sameDocument = true")  # gone if the page reloads

        # The chauffeur drives on: the phone's next position, sent at the page's next turn (the server takes
        # one every few seconds), shows on the traveller's page at its next refresh.
        chauffeur_phone.set_geolocation(OPERA)
        chauffeur.wait_for_timeout(5_500)
        chauffeur.clock.run_for(10_500)
        for _turn in range(20):  # the post on its way
            if positions_stored(mapped) == f"[({OPERA['latitude']}, {OPERA['longitude']})]":
                break
            chauffeur.wait_for_timeout(250)
        assert positions_stored(mapped) == f"[({OPERA['latitude']}, {OPERA['longitude']})]"
        traveller.clock.run_for(11_000)
        traveller.locator("#ride-position-text", has_text="48.20278, 16.36889").wait_for()
        after = traveller.locator("#ride-map .cb-map-chauffeur").bounding_box()
        assert (after["x"], after["y"]) != (before["x"], before["y"])
        assert traveller.locator("#ride-eta").count() == 1

        # At the pickup, then the passenger on board: the position goes, from the page and the database.
        chauffeur.click("#move-arrived")
        chauffeur.click("#move-on_board")
        chauffeur.wait_for_selector("#steps li.current", state="attached")
        assert chauffeur.locator("#position-sharing").count() == 0
        assert positions_stored(mapped) == "[]"
        traveller.clock.run_for(11_000)
        traveller.locator("#ride-now", has_text="You are on board").wait_for()
        assert traveller.locator("#ride-position-text").count() == 0
        assert traveller.locator("#ride-map").is_hidden()
        assert traveller.evaluate("window.sameDocument") is True
        assert traveller_errors == []
        assert chauffeur_errors == []
    finally:
        traveller_phone.close()
        chauffeur_phone.close()
