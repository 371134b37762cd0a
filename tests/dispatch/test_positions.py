"""The traveller sees the chauffeur coming (dispatch/positions.py, booking/ride_position.py): a chauffeur who
turned sharing on sends their phone's position from "on the way" until "on board", only the latest is kept,
and the ride's traveller reads it with an arrival time (never before now, the position's freshness by our
clock). Refused, storing nothing: a link that is no longer the ride's chauffeur's, a booking not confirmed,
a ride not on the way or at the pickup, sharing ended by the clock (3 hours after the pickup, 24 hours after
consent), no consent, a position that is not one; a reading too unsure is ignored. The position goes when
the passenger is on board (and with a no-show) or staff undo "on the way", in the move's transaction; an
undo shares nothing until the chauffeur consents again; a ride past its end loses it in the retention run.
The job page's switch and its script's posts (CSRF, a key that opens nothing)."""

import json
import math
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from booking import transitions
from booking.models import Booking, ChauffeurPosition
from booking.ride_position import AFTER_PICKUP, KEPT_AT_MOST, STALE_AFTER, arrival, shared_position
from dispatch import assignment, job_links, positions, ride_day
from dispatch.models import JobLink
from payments import cancellation
from places.geo import LatLng
from places.providers.base import Endpoint
from places.services import offline_provider
from privacy import retention
from tests.dispatch.conftest import assign
from tests.mcp_endpoint.mcp import call, tool_result

pytestmark = pytest.mark.django_db
SACHER = offline_provider().route(Endpoint("Hotel Sacher"), Endpoint("Flughafen Wien"), departure=None).start
OPERA = (48.20278, 16.36889)  # a few hundred metres from the hotel
PRATER = (48.21667, 16.39583)


@pytest.fixture
def job(fleet, ride):
    """Karl's ride in an hour (within the start window), Hotel Sacher → the airport, and his link."""
    booking = ride(pickup=(timezone.now() + timedelta(hours=1)).replace(microsecond=0))
    assign(booking, fleet["karl"], fleet["sedan"])
    booking.refresh_from_db()
    link, key = job_links.issue(booking, fleet["karl"])
    return booking, link, key


def move(booking, *states):
    for state in states:
        ride_day.advance(booking.pk, state, driver=booking.driver, actor="Karl Huber (chauffeur)")


def sharing_on_the_way(booking, link):
    """Karl on the way, sharing his position (no fix sent yet)."""
    move(booking, "accepted", "on_the_way")
    positions.start_sharing(link)


def send(link, where=OPERA, *, accuracy=20, at=None):
    return positions.share(
        link,
        latitude=where[0],
        longitude=where[1],
        accuracy_m=accuracy,
        measured_at=at or timezone.now(),
    )


def stored():
    return list(ChauffeurPosition.objects.values_list("latitude", "longitude", "accuracy_m"))


def refused(code: str, call) -> None:
    with pytest.raises(positions.PositionRefused) as refusal:
        call()
    assert refusal.value.code == code


def test_on_the_way_with_consent_the_traveller_sees_the_latest_position_and_when_the_chauffeur_comes(job):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    assert shared_position(booking) is None  # consented, no position yet
    with time_machine.travel(timezone.now(), tick=False) as clock:
        assert send(link, PRATER, accuracy=35.4) is True
        clock.shift(timedelta(seconds=10))
        assert send(link, OPERA, accuracy=12) is True
        seen = shared_position(booking)
        now = timezone.now()
    assert stored() == [(*OPERA, 12)]  # one row: the latest, written over
    assert (seen.latitude, seen.longitude, seen.accuracy_m) == (*OPERA, 12)
    assert seen.measured_at == now
    assert seen.pickup == SACHER
    assert seen.eta == arrival(LatLng(*OPERA), SACHER, now)
    # a few hundred metres in town: a minute or two, more from the Prater (about 3 km)
    assert timedelta(0) < seen.eta - now < timedelta(minutes=5)
    assert arrival(LatLng(*PRATER), SACHER, now) - now > seen.eta - now


def test_the_api_tells_the_arrival_time_and_never_the_position(job, client, agent):
    booking, link, _key = job
    path = f"/api/v1/bookings/{booking.reference}"
    read = client.get(path, {"email": booking.email}, **agent).json()
    assert read["chauffeurArrival"] is None
    sharing_on_the_way(booking, link)
    with time_machine.travel(timezone.now().replace(microsecond=0), tick=False):
        send(link)
        expected = shared_position(booking).eta
        read = client.get(path, {"email": booking.email}, **agent).json()
        asked = {"reference": booking.reference, "email": booking.email}
        tool = tool_result(call(client, agent, "booking.get_booking", asked))["structuredContent"]
    assert read["chauffeurArrival"] == timezone.localtime(expected).isoformat() == tool["chauffeurArrival"]
    for answer in (read, tool):  # the position is the traveller's alone
        assert str(OPERA[0]) not in json.dumps(answer) and str(OPERA[1]) not in json.dumps(answer)
    move(booking, "arrived")
    assert client.get(path, {"email": booking.email}, **agent).json()["chauffeurArrival"] is None


def test_at_the_pickup_the_position_stays_without_an_arrival_time(job):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    send(link)
    move(booking, "arrived")
    seen = shared_position(booking)
    assert (seen.latitude, seen.eta) == (OPERA[0], None)


def test_without_consent_nothing_is_stored(job):
    booking, link, _key = job
    move(booking, "accepted", "on_the_way")
    refused("position_not_consented", lambda: send(link))
    assert stored() == [] and shared_position(booking) is None


@pytest.mark.parametrize("states", [(), ("accepted",)])
def test_before_on_the_way_neither_consent_nor_position_is_taken(job, states):
    booking, link, _key = job
    move(booking, *states)
    refused("position_not_shared_now", lambda: positions.start_sharing(link))
    ChauffeurPosition.objects.create(booking=booking, driver=booking.driver, consented_at=timezone.now())
    refused("position_not_shared_now", lambda: send(link))
    assert stored() == [(None, None, None)] and shared_position(booking) is None


def revoke(booking, link, fleet):
    job_links.revoke(booking.pk, actor="eva (staff)")


def expire(booking, link, fleet):
    JobLink.objects.filter(pk=link.pk).update(expires_at=timezone.now() - timedelta(minutes=1))


def reassign(booking, link, fleet):
    assignment.assign(
        booking.pk, driver_id=fleet["mira"].pk, vehicle_id=fleet["sedan"].pk, actor="eva (staff)"
    )


def cancel(booking, link, fleet):
    cancellation.cancel(booking.pk, actor="eva (staff)")


@pytest.mark.parametrize("ends", [revoke, expire, reassign, cancel])
def test_a_link_that_is_no_longer_the_rides_chauffeurs_stores_nothing(job, fleet, ends):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    send(link, PRATER)
    ends(booking, link, fleet)
    with time_machine.travel(timezone.now() + timedelta(seconds=30), tick=False):
        refused("not_your_ride", lambda: send(link, OPERA))
        refused("not_your_ride", lambda: positions.start_sharing(link))
    # unchanged; staff's revoke, the new chauffeur's link and a cancellation delete it at once, the
    # retention run an expired link's
    assert stored() == ([] if ends in (revoke, reassign, cancel) else [(*PRATER, 20)])
    booking.refresh_from_db()
    if ends is not expire:  # an expired link: the ride long over, its state no longer on the way
        assert shared_position(booking) is None  # no longer shown


@pytest.mark.parametrize("ends", [revoke, reassign])
def test_the_job_page_of_a_link_no_longer_the_rides_chauffeurs_stores_nothing(job, fleet, client, ends):
    booking, link, key = job
    sharing_on_the_way(booking, link)
    ends(booking, link, fleet)
    with time_machine.travel(timezone.now() + timedelta(seconds=30), tick=False):
        answer = post_position(client, key, fix(PRATER))
        switched = client.post(f"/chauffeur/job/{key}/sharing", {"share": "on"})
    assert answer.status_code == 404 and answer.json()["code"] in ("not_found", "not_your_ride")
    assert switched.status_code in (302, 404) and stored() == []
    assert not ChauffeurPosition.objects.exists()


@pytest.mark.parametrize(
    ("latitude", "longitude", "accuracy"),
    [
        ("48.2", 16.37, 10),
        (None, 16.37, 10),
        (True, 16.37, 10),
        (math.nan, 16.37, 10),
        (48.2, math.inf, 10),
        (90.5, 16.37, 10),
        (48.2, -180.1, 10),
        (48.2, 16.37, -1),
        (48.2, 16.37, "10"),
        pytest.param(10**400, 16.37, 10, id="latitude-too-large-for-a-float"),  # not a server error
        pytest.param(48.2, 16.37, 10**400, id="accuracy-too-large-for-a-float"),
    ],
)
def test_what_is_not_a_position_is_refused(job, latitude, longitude, accuracy):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    call = lambda: positions.share(  # noqa: E731
        link, latitude=latitude, longitude=longitude, accuracy_m=accuracy, measured_at=timezone.now()
    )
    refused("invalid_position", call)
    assert stored() == [(None, None, None)]


def test_posts_sooner_than_every_few_seconds_or_older_than_the_last_are_ignored(job):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    with time_machine.travel(timezone.now(), tick=False) as clock:
        assert send(link, PRATER) is True
        clock.shift(timedelta(seconds=2))
        assert send(link, OPERA) is False  # too soon
        clock.shift(timedelta(seconds=10))
        assert send(link, OPERA, at=timezone.now() - timedelta(minutes=1)) is False  # measured before
        assert send(link, OPERA, at=timezone.now() + timedelta(hours=1)) is True  # the phone's clock is ahead
        assert ChauffeurPosition.objects.get().measured_at == timezone.now()
    assert stored() == [(*OPERA, 20)]


def test_a_ride_staff_completed_takes_neither_consent_nor_position(job):
    """Its link still opens (a completed job's page), and its last step still says "on the way"."""
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    send(link, PRATER)
    with time_machine.travel(booking.pickup_at + timedelta(minutes=1), tick=False):
        transitions.complete_by_staff(booking.pk, actor="eva (staff)")  # deletes the position
        refused("position_not_shared_now", lambda: positions.start_sharing(link))
        assert stored() == []
        ChauffeurPosition.objects.create(booking=booking, driver=booking.driver, consented_at=timezone.now())
        refused("position_not_shared_now", lambda: send(link, OPERA))
    assert stored() == [(None, None, None)]


def test_undoing_on_the_way_deletes_the_position_and_the_next_on_the_way_asks_again(job):
    booking, link, key = job
    sharing_on_the_way(booking, link)
    send(link)
    ride_day.undo_last(booking.pk, actor="eva (staff)")  # back to "accepted"
    assert ChauffeurPosition.objects.count() == 0
    move(booking, "on_the_way")
    assert shared_position(booking) is None and positions.consent_of(booking, link) is None
    assert 'id="start-sharing"' in page(Client(), key)  # the page asks again, sending nothing
    with time_machine.travel(timezone.now() + timedelta(seconds=30), tick=False):
        refused("position_not_consented", lambda: send(link, PRATER))
    assert stored() == []


def test_undoing_arrived_keeps_sharing(job):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    send(link)
    move(booking, "arrived")
    ride_day.undo_last(booking.pk, actor="eva (staff)")  # back on the way
    assert stored() == [(*OPERA, 20)] and shared_position(booking).latitude == OPERA[0]


def test_sharing_ends_three_hours_after_the_pickup_whatever_the_rides_state(job, client):
    """A chauffeur who forgets "on board" is not followed home."""
    booking, link, key = job
    sharing_on_the_way(booking, link)
    send(link, PRATER)
    end = booking.pickup_at + AFTER_PICKUP
    with time_machine.travel(end - timedelta(seconds=1), tick=False):
        assert shared_position(booking) is not None
        assert 'id="position-sharing"' in page(client, key)
    with time_machine.travel(end, tick=False):
        refused("position_sharing_ended", lambda: send(link, OPERA))
        assert shared_position(booking) is None
        assert 'id="position-sharing"' not in page(client, key)  # the switch is not offered
        answer = post_position(client, key, fix(), lang="en")
        assert answer.status_code == 409
        assert answer.json() == {
            "code": "position_sharing_ended",
            "detail": "Sharing your position has ended for this ride.",
        }
        assert stored() == [(*PRATER, 20)]  # unchanged
        positions.stop_sharing(link)
        refused("position_sharing_ended", lambda: positions.start_sharing(link))
    assert stored() == []


def test_the_end_follows_a_pickup_moved_by_its_flight(job):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    send(link, PRATER)
    first_end = booking.pickup_at + AFTER_PICKUP
    Booking.objects.filter(pk=booking.pk).update(pickup_at=booking.pickup_at + timedelta(hours=2))
    booking.refresh_from_db()
    with time_machine.travel(first_end + timedelta(minutes=1), tick=False):
        assert send(link, OPERA) is True
        assert shared_position(booking).latitude == OPERA[0]
    with time_machine.travel(booking.pickup_at + AFTER_PICKUP, tick=False):
        refused("position_sharing_ended", lambda: send(link, PRATER))
    assert stored() == [(*OPERA, 20)]


def test_sharing_ends_a_day_after_consent_on_a_ride_started_far_ahead(fleet, ride):
    booking = ride(pickup=(timezone.now() + timedelta(hours=26)).replace(microsecond=0))
    assign(booking, fleet["karl"], fleet["sedan"])
    booking.refresh_from_db()
    link, _key = job_links.issue(booking, fleet["karl"])
    move(booking, "accepted")
    ride_day.advance(  # a pickup far away: "on the way" early, as the chauffeur confirmed
        booking.pk, "on_the_way", driver=booking.driver, actor="Karl", confirmed_pickup=booking.pickup_at
    )
    consented_at = positions.start_sharing(link).consented_at
    send(link, PRATER)
    with time_machine.travel(consented_at + KEPT_AT_MOST - timedelta(seconds=1), tick=False):
        assert send(link, OPERA) is True
    with time_machine.travel(consented_at + KEPT_AT_MOST, tick=False):
        refused("position_sharing_ended", lambda: send(link, PRATER))
        assert shared_position(booking) is None
    assert stored() == [(*OPERA, 20)]


def test_the_retention_run_removes_a_position_once_its_sharing_ended(job):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    send(link)
    end = booking.pickup_at + AFTER_PICKUP
    with time_machine.travel(end - timedelta(seconds=1), tick=False):
        assert retention.remove()["chauffeur_positions"] == 0
    with time_machine.travel(end, tick=False):
        assert retention.remove()["chauffeur_positions"] == 1
    assert ChauffeurPosition.objects.count() == 0


def test_a_reading_less_sure_than_100_km_is_ignored_and_sharing_goes_on(job, client):
    booking, link, key = job
    sharing_on_the_way(booking, link)
    with time_machine.travel(timezone.now(), tick=False) as clock:
        assert send(link, PRATER) is True
        clock.shift(timedelta(seconds=10))
        assert send(link, OPERA, accuracy=positions.LONGEST_ACCURACY_M + 1) is False
        answer = post_position(client, key, fix(OPERA, accuracy=250_000.5))
        assert answer.status_code == 200 and answer.json() == {"stored": False}
        assert stored() == [(*PRATER, 20)]  # nothing stored
        assert send(link, OPERA, accuracy=positions.LONGEST_ACCURACY_M) is True  # the next one is
    assert stored() == [(*OPERA, positions.LONGEST_ACCURACY_M)]


def test_a_number_too_large_for_a_float_is_refused_not_a_server_error(job, client):
    booking, link, key = job
    sharing_on_the_way(booking, link)
    for body in ({**fix(), "latitude": 10**400}, {**fix(), "accuracy": 10**400}):
        answer = post_position(client, key, body)
        assert answer.status_code == 400 and answer.json()["code"] == "invalid_position"
    assert stored() == [(None, None, None)]


def test_the_arrival_time_is_never_before_now(job):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    with time_machine.travel(timezone.now().replace(microsecond=0), tick=False) as clock:
        send(link, OPERA)  # a minute or two from the pickup
        clock.shift(timedelta(minutes=8))  # no newer position, still fresh
        assert shared_position(booking).eta == timezone.now()


def test_freshness_is_judged_by_our_clock_not_the_phones(job):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    with time_machine.travel(timezone.now().replace(microsecond=0), tick=False) as clock:
        send(link, OPERA, at=timezone.now() - timedelta(minutes=30))  # the phone's clock half an hour slow
        assert shared_position(booking).eta == timezone.now()  # received just now: fresh, and due now
        clock.shift(STALE_AFTER + timedelta(seconds=1))
        assert shared_position(booking).eta is None  # nothing received since


def test_on_board_deletes_the_position_and_an_undo_shares_nothing_until_consented_again(job):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    send(link)
    move(booking, "arrived", "on_board")
    assert ChauffeurPosition.objects.count() == 0 and shared_position(booking) is None
    ride_day.undo_last(booking.pk, actor="eva (staff)")  # back at the pickup
    with time_machine.travel(timezone.now() + timedelta(seconds=30), tick=False):
        refused("position_not_consented", lambda: send(link))
        assert ChauffeurPosition.objects.count() == 0
        positions.start_sharing(link)
        assert send(link, PRATER) is True
    assert stored() == [(*PRATER, 20)]


def test_a_no_show_deletes_the_position(job):
    booking, link, _key = job
    move(booking, "accepted", "on_the_way", "arrived")
    positions.start_sharing(link)
    send(link)
    with time_machine.travel(booking.pickup_at + timedelta(hours=1), tick=False):
        move(booking, "no_show")
    assert ChauffeurPosition.objects.count() == 0


def test_stop_sharing_deletes_it_at_once(job):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    send(link)
    assert positions.stop_sharing(link) is True
    assert ChauffeurPosition.objects.count() == 0 and shared_position(booking) is None
    refused("position_not_consented", lambda: send(link))


def test_the_retention_run_removes_the_positions_of_rides_nobody_moved_on(job, fleet, ride):
    booking, link, _key = job
    sharing_on_the_way(booking, link)
    send(link)
    other = ride(pickup=(timezone.now() + timedelta(hours=1)).replace(microsecond=0))
    assign(other, fleet["mira"], fleet["sedan2"])
    other.refresh_from_db()
    other_link, _other_key = job_links.issue(other, fleet["mira"])
    move(other, "accepted", "on_the_way")
    positions.start_sharing(other_link)
    assert retention.remove()["chauffeur_positions"] == 0  # both still on the way
    cancellation.cancel(booking.pk, actor="eva (staff)")  # a cancelled ride's goes at once
    assert list(ChauffeurPosition.objects.values_list("booking", flat=True)) == [other.pk]
    with time_machine.travel(timezone.now() + timedelta(hours=25), tick=False):  # a ride nobody moved on
        assert retention.remove()["chauffeur_positions"] == 1
    assert ChauffeurPosition.objects.count() == 0


# The job page: its switch, and the posts of its script.


def page(client, key, lang="en") -> str:
    return client.get(f"/chauffeur/job/{key}/?lang={lang}").content.decode()


def post_position(client, key, body, lang="", **headers):
    path = f"/chauffeur/job/{key}/position" + (f"?lang={lang}" if lang else "")
    return client.post(path, json.dumps(body), content_type="application/json", **headers)


def fix(where=OPERA, accuracy=15.0):
    return {
        "latitude": where[0],
        "longitude": where[1],
        "accuracy": accuracy,
        "measuredAt": timezone.now().timestamp() * 1000,
    }


def test_the_job_page_offers_the_switch_on_the_way_only_and_its_script_sends_with_the_csrf_token(job):
    booking, _link, key = job
    browser = Client(enforce_csrf_checks=True)
    assert 'id="position-sharing"' not in page(browser, key)
    move(booking, "accepted", "on_the_way")
    html = page(browser, key, "de")
    assert "Meinen Standort bis zur Abholung mit dem Fahrgast teilen" in html
    assert "data-position-url" not in html  # nothing sent before the chauffeur says yes
    token = browser.cookies["csrftoken"].value
    assert browser.post(f"/chauffeur/job/{key}/sharing", {"share": "on"}).status_code == 403
    assert ChauffeurPosition.objects.count() == 0
    answer = browser.post(
        f"/chauffeur/job/{key}/sharing", {"share": "on", "lang": "de", "csrfmiddlewaretoken": token}
    )
    assert answer.status_code == 302 and answer["Location"] == f"/chauffeur/job/{key}/?lang=de"
    html = page(browser, key, "de")
    assert "Der Fahrgast sieht Ihren Standort, bis er an Bord ist." in html
    assert f'data-position-url="/chauffeur/job/{key}/position"' in html and 'id="stop-sharing"' in html

    assert post_position(browser, key, fix()).status_code == 403  # without the token
    assert stored() == [(None, None, None)]
    answer = post_position(browser, key, fix(), HTTP_X_CSRFTOKEN=token)
    assert answer.status_code == 200 and answer.json() == {"stored": True}
    assert "no-store" in answer["Cache-Control"]
    assert stored() == [(*OPERA, 15)]
    assert post_position(browser, key, fix(PRATER), HTTP_X_CSRFTOKEN=token).json() == {"stored": False}

    browser.post(f"/chauffeur/job/{key}/sharing", {"share": "off", "csrfmiddlewaretoken": token})
    assert ChauffeurPosition.objects.count() == 0
    assert 'id="start-sharing"' in page(browser, key)


def test_the_script_hears_why_a_position_is_refused_in_the_chauffeurs_language(client, job):
    booking, link, key = job
    move(booking, "accepted", "on_the_way")
    answer = post_position(client, key, fix())
    assert answer.status_code == 409
    assert answer.json() == {
        "code": "position_not_consented",
        "detail": "Schalten Sie zuerst das Teilen Ihres Standorts ein.",  # Karl's first language
    }
    positions.start_sharing(link)
    for body in ({"latitude": "x"}, [1, 2], {"latitude": 48.2, "longitude": 200}):
        answer = post_position(client, key, body)
        assert answer.status_code == 400 and answer.json()["code"] == "invalid_position"
    bad = client.post(f"/chauffeur/job/{key}/position", "{", content_type="application/json")
    assert bad.status_code == 400
    assert stored() == [(None, None, None)]
    assert post_position(client, "1.not-a-key", fix()).status_code == 404
    move(booking, "arrived", "on_board")
    answer = post_position(client, key, fix())
    assert answer.status_code == 409 and answer.json()["code"] == "position_not_shared_now"
    assert ChauffeurPosition.objects.count() == 0


def test_a_fix_without_a_readable_time_is_taken_as_received(client, job):
    booking, link, key = job
    sharing_on_the_way(booking, link)
    with time_machine.travel(timezone.now().replace(microsecond=0) + timedelta(minutes=1), tick=False):
        assert post_position(client, key, {**fix(), "measuredAt": "soon"}).json() == {"stored": True}
        assert ChauffeurPosition.objects.get().measured_at == timezone.now()


@pytest.mark.parametrize(
    ("path", "row"),
    [
        (
            "/en/privacy",
            "<td>The chauffeur&#x27;s position on the way to the pickup, shared with the traveller</td>",
        ),
        (
            "/de/privacy",
            "<td>Der Standort des Chauffeurs auf dem Weg zur Abholung, mit dem Fahrgast geteilt</td>",
        ),
    ],
)
def test_the_privacy_page_says_how_long_the_position_is_kept(client, path, row):
    page = client.get(path).content.decode()
    assert row in page and ("until the pickup" in page or "bis zur Abholung" in page)


@pytest.mark.parametrize(
    ("path", "words"),
    [
        (
            "/en/privacy",
            [
                "you see it on your booking page while they come to the pickup",
                "your browser loads the map images from our map tile provider, which thereby learns your IP "
                "address and the map area shown",
            ],
        ),
        (
            "/de/privacy",
            [
                "sehen Sie ihn, während er zur Abholung unterwegs ist, auf Ihrer Buchungsseite",
                "lädt Ihr Browser die Kartenbilder von unserem Kartenanbieter, der dabei Ihre IP-Adresse und "
                "den gezeigten Kartenausschnitt erfährt",
            ],
        ),
    ],
)
def test_a_fresh_installs_privacy_notice_names_the_position_and_the_map_tiles(client, path, words):
    page = client.get(path).content.decode()
    assert all(said in page for said in words)
