"""The chauffeur's job page (dispatch/job_page.py): a job link opens the job in the chauffeur's language with
buttons for the next state only; a move goes through dispatch/ride_day.py, a refused one shows why and
changes nothing; without the CSRF token nothing moves. Every key that opens nothing gets the very same
page, and an address that keeps trying is stopped. The page is never cached, indexed or framed."""

import re
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from booking import cancellation, ride
from booking.models import RideState
from dispatch import assignment, job_links, job_page
from tests.dispatch.conftest import assign

pytestmark = pytest.mark.django_db


@pytest.fixture
def job(fleet, ride):
    """Karl's job in two hours (German is his first language), with a flight, notes and its link's key."""
    booking = ride(
        pickup=(timezone.now() + timedelta(hours=2)).replace(microsecond=0),
        flight_number="OS 88",
        notes="Child seat, please",
        destination="Flughafen Wien, Schwechat",
    )
    assign(booking, fleet["karl"], fleet["sedan"])
    booking.refresh_from_db()
    _link, key = job_links.issue(booking, fleet["karl"])
    return booking, key


def url(key: str, reference: str = "") -> str:
    return f"/chauffeur/job/{key}/" + (f"{reference}/" if reference else "")


def buttons(response) -> list[str]:
    return re.findall(r'name="state" value="(\w+)"', response.content.decode())


def snapshot(booking):
    booking.refresh_from_db()
    return booking.status, list(booking.ride_steps.values_list("state", "undone_at")), booking.history.count()


def test_the_page_shows_the_job_in_german_for_a_chauffeur_who_speaks_it_first(client, job):
    booking, key = job
    response = client.get(url(key))
    assert response.status_code == 200
    page = response.content.decode()
    assert '<html lang="de">' in page
    assert f"Fahrt {booking.reference}" in page and "Auftrag annehmen" in page
    for shown in ("Hotel Sacher", "Flughafen Wien, Schwechat", "Anna Berger", "OS 88", "Child seat, please",
                  "W-1000A (E-Class)", 'href="tel:+431234"'):  # fmt: skip
        assert shown in page, shown
    assert "https://www.google.com/maps/search/?api=1&amp;query=Hotel+Sacher" in page
    assert (
        "https://www.google.com/maps/dir/?api=1&amp;destination=Hotel+Sacher&amp;travelmode=driving" in page
    )  # to the pickup until the passenger is on board
    assert f'href="/chauffeur/job/{key}/{booking.reference}/calendar.ics"' in page
    assert '<meta name="robots" content="noindex, nofollow">' in page


def test_an_english_chauffeur_reads_english_and_the_switch_changes_the_language(client, fleet, ride):
    booking = ride(pickup=(timezone.now() + timedelta(hours=3)).replace(microsecond=0))
    assign(booking, fleet["mira"], fleet["sedan"])
    _link, key = job_links.issue(booking, fleet["mira"])
    english = client.get(url(key), HTTP_ACCEPT_LANGUAGE="de").content.decode()  # hers, not the browser's
    assert (
        '<html lang="en">' in english
        and f"Job {booking.reference}" in english
        and "Accept the job" in english
    )
    german = client.get(url(key) + "?lang=de").content.decode()
    assert '<html lang="de">' in german and "Auftrag annehmen" in german
    assert 'name="lang" value="de"' in german  # a move keeps the language asked for


def test_the_page_is_private_and_never_cached_or_framed(client, job):
    _booking, key = job
    response = client.get(url(key))
    assert response["Cache-Control"] == "private, no-store"
    assert response["X-Robots-Tag"] == "noindex, nofollow"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "<script>" not in response.content.decode() and "style=" not in response.content.decode()


def test_a_chauffeur_takes_the_job_through_every_state_with_one_button_each_time(client, fleet, job):
    booking, key = job
    for state in ride.SEQUENCE:
        assert buttons(client.get(url(key))) == [state]
        moved = client.post(url(key), {"state": state})
        assert moved.status_code == 302 and moved["Location"] == url(key)
        booking.refresh_from_db()
        assert ride.progress(booking).state == state
    page = client.get(url(key)).content.decode()
    assert buttons(client.get(url(key))) == [] and "Diese Fahrt ist erledigt" in page
    assert booking.status == "completed"
    assert set(booking.ride_steps.values_list("actor", flat=True)) == {"Karl Huber (chauffeur)"}


def test_a_move_shows_what_was_saved(client, job):
    _booking, key = job
    shown = client.post(url(key), {"state": "accepted", "lang": "en"}, follow=True)
    assert shown.redirect_chain == [(url(key) + "?lang=en", 302)]
    assert "Saved: accepted." in shown.content.decode()


def test_a_no_show_is_offered_only_after_the_included_wait(client, job):
    booking, key = job
    for state in ride.SEQUENCE[:3]:
        client.post(url(key), {"state": state})
    with time_machine.travel(booking.pickup_at + timedelta(minutes=59), tick=False):  # a flight: 60 minutes
        assert buttons(client.get(url(key))) == ["on_board"]
    with time_machine.travel(booking.pickup_at + timedelta(minutes=60), tick=False):
        assert buttons(client.get(url(key))) == ["on_board", "no_show"]


@pytest.mark.parametrize("target", ["on_the_way", "completed", "no_show", "flying", ""])
def test_a_refused_move_shows_the_refusal_and_changes_nothing(client, job, target):
    booking, key = job
    before = snapshot(booking)
    shown = client.post(url(key), {"state": target, "lang": "en"}, follow=True)
    assert shown.status_code == 200
    assert re.search(
        r'class="jp-message error" role="alert">The ride is not accepted yet; it cannot',
        shown.content.decode(),
    )
    assert snapshot(booking) == before


def test_a_move_without_the_csrf_token_changes_nothing(job):
    booking, key = job
    browser = Client(enforce_csrf_checks=True)
    before = snapshot(booking)
    assert browser.post(url(key), {"state": "accepted"}).status_code == 403
    assert snapshot(booking) == before
    page = browser.get(url(key)).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    assert browser.post(url(key), {"state": "accepted", "csrfmiddlewaretoken": token}).status_code == 302
    assert snapshot(booking)[1] == [("accepted", None)]


def test_the_other_jobs_of_today_and_later_open_through_the_same_link(client, fleet, ride, job):
    booking, key = job
    later = ride(pickup=booking.pickup_at + timedelta(days=1), origin="Hotel Imperial")
    assign(later, fleet["karl"], fleet["sedan"])
    miras = ride(pickup=booking.pickup_at + timedelta(days=2), origin="Palais Coburg")
    assign(miras, fleet["mira"], fleet["sedan2"])
    page = client.get(url(key)).content.decode()
    assert f'href="{url(key, later.reference)}"' in page and "Hotel Imperial" in page
    assert "Palais Coburg" not in page  # another chauffeur's
    other = client.get(url(key, later.reference))
    assert other.status_code == 200 and f"Fahrt {later.reference}" in other.content.decode()
    assert client.post(url(key, later.reference), {"state": "accepted"}).status_code == 302
    assert ride_state(later) == RideState.ACCEPTED and ride_state(booking) is None
    assert client.get(url(key, miras.reference)).status_code == 404


def ride_state(booking):
    booking.refresh_from_db()
    return ride.progress(booking).state


def test_the_calendar_entry_is_the_chauffeurs(client, job):
    booking, key = job
    response = client.get(url(key, booking.reference) + "calendar.ics")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/calendar")
    assert response["Cache-Control"] == "private, no-store"
    body = response.content.decode().replace("\r\n ", "")
    assert f"SUMMARY:Fahrt {booking.reference}" in body and "Anna Berger" in body


def not_found_page(client, key: str) -> tuple[int, bytes]:
    response = client.get(url(key))
    return response.status_code, re.sub(rb'value="[^"]+"', b"", response.content)


def test_forged_expired_revoked_cancelled_and_reassigned_keys_get_the_very_same_page(
    client, fleet, ride, sandbox
):
    def issued(**fields):
        booking = ride(payment_provider="sandbox", payment_intent_id="sbx_pi_1", **fields)
        assign(booking, fleet["karl"], fleet["sedan"])
        return booking, job_links.issue(booking, fleet["karl"])[1]

    now = timezone.now()
    _expired, expired_key = issued(pickup=now - timedelta(days=2))
    revoked, revoked_key = issued(pickup=now + timedelta(days=3))
    job_links.revoke(revoked.pk, actor="eva (staff)")
    cancelled, cancelled_key = issued(pickup=now + timedelta(days=5))
    cancellation.cancel(cancelled.pk, actor="customer")
    moved, moved_key = issued(pickup=now + timedelta(days=7))
    assignment.assign(moved.pk, driver_id=fleet["mira"].pk, vehicle_id=fleet["sedan"].pk, actor="eva (staff)")
    answers = {
        name: not_found_page(client, key)
        for name, key in {
            "forged": "x" * 43, "expired": expired_key, "revoked": revoked_key, "cancelled": cancelled_key,
            "reassigned": moved_key,
        }.items()
    }  # fmt: skip
    assert {status for status, _body in answers.values()} == {404}
    assert len({body for _status, body in answers.values()}) == 1, answers
    page = answers["forged"][1].decode()
    assert "This link opens no job" in page and "Anna Berger" not in page


def test_an_address_that_keeps_trying_keys_is_stopped_even_with_a_good_one(client, job):
    _booking, key = job
    for attempt in range(job_page.MISSES):
        assert client.get(url(f"guess{attempt}")).status_code == 404
    stopped = client.get(url(key))
    assert stopped.status_code == 429 and int(stopped["Retry-After"]) > 0
    assert "Too many tries" in stopped.content.decode()
    other = Client(REMOTE_ADDR="198.51.100.7")  # another address is not stopped
    assert other.get(url(key)).status_code == 200


def test_good_keys_are_not_counted_as_tries(client, job):
    _booking, key = job
    for _attempt in range(job_page.MISSES + 5):
        assert client.get(url(key)).status_code == 200
