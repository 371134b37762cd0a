"""The chauffeur coming, on the traveller's manage page (web/ride_panel.py, booking/ride_position.py): while
the chauffeur shares their position on the way, the ride panel (the page and the fragment its script asks
for) prints it with the arrival time at the pickup, in the page's language, and is asked for every 10 s;
at the pickup without an arrival time; from "on board" on, nothing. The arrival time is never before now,
and a phone whose clock is slow still gets one. The map is drawn only when a tile server is configured
(MAP_TILE_URL, with {z}, {x} and {y} and no other placeholder), whose origin the Content-Security-Policy then
allows for images."""

import ast
import re
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from booking.models import ChauffeurPosition
from booking.ride_position import arrival, pickup_point
from dispatch import job_links, positions, ride_day
from places.geo import LatLng
from tests.dispatch.conftest import assign, fleet, ride  # noqa: F401 (fixtures)
from tests.processes import manage
from tests.web.test_manage_ride import manage_path, panel_path

pytestmark = pytest.mark.django_db
OPERA = (48.20278, 16.36889)
TILES = "https://tiles.example.org/{z}/{x}/{y}.png"


@pytest.fixture(autouse=True)
def late_morning():
    """Today at 11:00, the clock running: the pickup an hour ahead falls on the same day, whose times the
    panel prints alone (on another day, near midnight, it adds the date)."""
    with time_machine.travel(timezone.localtime().replace(hour=11, minute=0, second=0), tick=True):
        yield


@pytest.fixture
def coming(fleet, ride):  # noqa: F811
    """Karl on the way to Hotel Sacher, sharing his position by the opera, measured now."""
    booking = ride(pickup=(timezone.now() + timedelta(hours=1)).replace(microsecond=0))
    assign(booking, fleet["karl"], fleet["sedan"])
    booking.refresh_from_db()
    link, _key = job_links.issue(booking, fleet["karl"])
    for state in ("accepted", "on_the_way"):
        ride_day.advance(booking.pk, state, driver=booking.driver, actor="Karl Huber (chauffeur)")
    positions.start_sharing(link)
    measured = timezone.now().replace(microsecond=0)
    positions.share(link, latitude=OPERA[0], longitude=OPERA[1], accuracy_m=18, measured_at=measured)
    return booking, measured


def clock(moment) -> str:
    return timezone.localtime(moment).strftime("%H:%M")


def test_the_traveller_sees_where_the_chauffeur_is_and_when_they_come(client, coming):
    booking, measured = coming
    eta = arrival(LatLng(*OPERA), pickup_point(booking), measured)
    html = client.get(manage_path(booking, "en")).content.decode()
    assert f"Your chauffeur should be at the pickup at about {clock(eta)}." in html
    assert f"Your chauffeur's position at {clock(measured)}: 48.20278, 16.36889 (within 18 m)" in html
    assert 'data-refresh-seconds="10"' in html  # asked sooner while the chauffeur comes
    assert 'id="ride-map"' not in html and "ride_map.js" not in html  # no tile server: text only
    fragment = client.get(panel_path(html).replace("lang=en", "lang=de")).content.decode()
    assert f"Ihr Chauffeur ist voraussichtlich gegen {clock(eta)} am Abholort." in fragment
    assert f"Standort Ihres Chauffeurs um {clock(measured)}: 48.20278, 16.36889 (auf 18 m genau)" in fragment
    assert re.search(
        r'data-latitude="48.20278" data-longitude="16.36889" data-pickup-latitude="48\.\d+"', fragment
    )


def test_at_the_pickup_no_arrival_time_and_from_on_board_nothing(client, coming):
    booking, _measured = coming
    ride_day.advance(booking.pk, "arrived", driver=booking.driver, actor="Karl Huber (chauffeur)")
    html = client.get(manage_path(booking, "en")).content.decode()
    assert "Your chauffeur's position at" in html and "should be at the pickup" not in html
    ride_day.advance(booking.pk, "on_board", driver=booking.driver, actor="Karl Huber (chauffeur)")
    fragment = client.get(
        panel_path(client.get(manage_path(booking, "en")).content.decode())
    ).content.decode()
    assert "ride-position-text" not in fragment and "48.20278" not in fragment
    assert 'id="ride-position" class="cb-ride-position" data-refresh-seconds="30"' in fragment


def test_an_old_position_is_shown_with_its_time_but_no_arrival(client, coming):
    booking, measured = coming
    with time_machine.travel(measured + timedelta(minutes=11), tick=False):
        html = client.get(manage_path(booking, "en")).content.decode()
    assert f"Your chauffeur's position at {clock(measured)}" in html and "should be at the pickup" not in html


def test_a_phone_whose_clock_is_slow_still_shows_an_arrival_time_and_none_before_now(client, coming):
    booking, measured = coming
    ChauffeurPosition.objects.update(measured_at=measured - timedelta(minutes=30))  # received just now
    with time_machine.travel(measured + timedelta(seconds=5), tick=False):
        html = client.get(manage_path(booking, "en")).content.decode()
        now = timezone.now()
    assert f"Your chauffeur should be at the pickup at about {clock(now)}." in html


def test_the_map_is_drawn_with_the_configured_tile_server(client, coming, settings):
    booking, _measured = coming
    settings.MAP_TILE_URL, settings.MAP_TILE_ATTRIBUTION = TILES, "© Example tiles"
    html = client.get(manage_path(booking, "en")).content.decode()
    assert f'id="ride-map" class="cb-map" data-tiles="{TILES}"' in html
    assert '<p id="ride-map-attribution" class="cb-map-attribution" hidden>© Example tiles</p>' in html
    assert "/static/booking/ride_map.js" in html
    scripts = re.findall(r"<script[^>]*\bsrc=\"([^\"]+)\"", html)
    assert scripts and all(src.startswith("/static/") for src in scripts)  # no third party's script
    assert "<script>" not in html and "tiles.example.org" not in response_csp(client, booking)


def response_csp(client, booking) -> str:
    """The scripts' rule of the page's Content-Security-Policy: the tile server only ever serves images."""
    policy = client.get(manage_path(booking, "en"))["Content-Security-Policy"]
    return next(rule for rule in policy.split(";") if rule.strip().startswith("script-src"))


@pytest.mark.parametrize(
    ("tiles", "img_src"),
    [
        ("", ["'self'", "data:"]),
        (TILES, ["'self'", "data:", "https://tiles.example.org"]),
        ("http://127.0.0.1:8123/tiles/{z}/{x}/{y}.png", ["'self'", "data:", "http://127.0.0.1:8123"]),
    ],
)
def test_the_csp_allows_the_tile_servers_origin_for_images_only_when_set(tiles, img_src):
    code = (
        "from django.conf import settings; print(settings.CONTENT_SECURITY_POLICY['DIRECTIVES']['img-src'])"
    )
    done = manage("shell", "-c", code, DJANGO_DEBUG="true", MAP_TILE_URL=tiles)
    assert done.returncode == 0, done.stderr
    assert ast.literal_eval(done.stdout.strip().splitlines()[-1]) == img_src


@pytest.mark.parametrize("tiles", ["tiles.example.org/{z}/{x}/{y}.png", "https://tiles.example.org/tile.png"])
def test_a_tile_address_without_its_parts_stops_the_start(tiles):
    done = manage("check", DJANGO_DEBUG="true", MAP_TILE_URL=tiles)
    assert done.returncode != 0 and "MAP_TILE_URL must be an http(s) address" in done.stderr


@pytest.mark.parametrize(
    "tiles",
    [
        "https://{s}.tile.example/{z}/{x}/{y}.png",  # the map fills no subdomain
        "https://tiles.example.org/{z}/{x}/{y}{r}.png",
        "https://tiles.example.org/{z}/{x}/{y}.png?zoom={z}",  # the map fills each part once
    ],
)
def test_a_tile_address_with_a_placeholder_the_map_does_not_fill_stops_the_start(tiles):
    done = manage("check", DJANGO_DEBUG="true", MAP_TILE_URL=tiles)
    assert done.returncode != 0 and "no other placeholder (no {s}: name one subdomain)" in done.stderr
