"""The chauffeur's job page (dispatch/job_page.py): a job link opens its own job, and no other, in the
chauffeur's language with buttons for the next state only, once the ride's clock allows it; the page says
from when the next move and a no-show are possible, and asks before an early "on the way" (a form of its
own). A move goes through dispatch/ride_day.py, a refused one shows why, changes nothing and sends the
traveller nothing; without the CSRF token nothing moves. Every key that opens nothing gets the very same
page, and an address that keeps trying such keys is stopped, but never from a key that opens its job. The
page is never cached, indexed or framed."""

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.test import Client
from django.utils import timezone, translation

from booking import ride
from booking.models import Booking, RideState
from dispatch import assignment, job_links, job_page, ride_day
from dispatch.models import RideDayPolicy
from jobqueue.models import Job
from payments import cancellation
from tests.dispatch.conftest import assign

pytestmark = pytest.mark.django_db
VIENNA = ZoneInfo("Europe/Vienna")
NEWS_TASK = "booking.tasks.send_ride_news"


@pytest.fixture
def job(fleet, ride):
    """Karl's job in an hour, within the start window (German is his first language), from the hotel to the
    airport with the flight he departs on, notes and its link's key."""
    booking = ride(
        pickup=(timezone.now() + timedelta(hours=1)).replace(microsecond=0),
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
    return (
        booking.status,
        list(booking.ride_steps.values_list("state", "undone_at")),
        booking.history.count(),
        Job.objects.filter(task_path=NEWS_TASK).count(),
    )


def test_a_phone_kept_from_before_numbers_were_checked_is_shown_but_not_dialled(client, job):
    booking, key = job
    Booking.objects.filter(pk=booking.pk).update(phone="call the hotel")
    page = client.get(url(key)).content.decode()
    assert "call the hotel" in page and 'id="passenger-phone"' not in page and "tel:call" not in page


def test_the_page_shows_the_job_in_german_for_a_chauffeur_who_speaks_it_first(client, job):
    booking, key = job
    Booking.objects.filter(pk=booking.pk).update(phone="+43123456789")
    response = client.get(url(key))
    assert response.status_code == 200
    page = response.content.decode()
    assert '<html lang="de">' in page
    assert f"Fahrt {booking.reference}" in page and "Auftrag annehmen" in page
    for shown in (
        "Hotel Sacher",
        "Flughafen Wien, Schwechat",
        "Anna Berger",
        "OS 88",
        "Child seat, please",
        "W-1000A (E-Class)",
        '<a href="tel:+43123456789" id="passenger-phone">+43 1 23456789</a>',
    ):
        assert shown in page, shown
    assert "https://www.google.com/maps/search/?api=1&amp;query=Hotel+Sacher" in page
    assert (
        "https://www.google.com/maps/dir/?api=1&amp;destination=Hotel+Sacher&amp;travelmode=driving" in page
    )  # to the pickup until the passenger is on board
    assert f'href="/chauffeur/job/{key}/calendar.ics"' in page
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
        with time_machine.travel(booking.pickup_at if state == RideState.COMPLETED else timezone.now()):
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


def test_a_no_show_is_offered_only_after_the_included_wait_and_the_page_says_from_when(client, job):
    booking, key = job  # from the hotel: 15 minutes, whatever the flight number
    for state in ride.SEQUENCE[:3]:
        client.post(url(key), {"state": state})
    with translation.override("en"):  # its date too when it falls after midnight
        no_show_from = ride_day.at_time(
            booking.pickup_at + timedelta(minutes=15), booking.pickup_at + timedelta(minutes=14)
        )
    with time_machine.travel(booking.pickup_at + timedelta(minutes=14), tick=False):
        page = client.get(url(key) + "?lang=en")
        assert buttons(page) == ["on_board"]
        assert f"<li>“No-show” possible from {no_show_from}.</li>" in page.content.decode()
    with time_machine.travel(booking.pickup_at + timedelta(minutes=15), tick=False):
        page = client.get(url(key))
        assert buttons(page) == ["on_board", "no_show"] and 'id="possible-from"' not in page.content.decode()


def test_at_the_airport_the_no_show_waits_for_the_flights_hour(client, fleet, ride):
    booking = ride(
        pickup=(timezone.now() + timedelta(minutes=30)).replace(microsecond=0),
        flight_number="OS 88",
        origin="Flughafen Wien-Schwechat (VIE), Schwechat, Österreich",
        destination="Hotel Sacher",
    )
    assign(booking, fleet["karl"], fleet["sedan"])
    _link, key = job_links.issue(booking, fleet["karl"])
    for state in ("accepted", "on_the_way", "arrived"):
        client.post(url(key), {"state": state})
    with time_machine.travel(booking.pickup_at + timedelta(minutes=59), tick=False):
        page = client.get(url(key) + "?lang=de")
        assert buttons(page) == ["on_board"]
        possible = timezone.localtime(booking.pickup_at + timedelta(minutes=60)).strftime("%H:%M")
        assert f"„Nicht erschienen“ möglich ab {possible}." in page.content.decode()
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


def test_the_other_live_jobs_are_listed_without_a_way_to_open_or_move_them(client, fleet, ride, job):
    booking, key = job
    later = ride(pickup=booking.pickup_at + timedelta(days=1), origin="Hotel Imperial")
    assign(later, fleet["karl"], fleet["sedan"])
    miras = ride(pickup=booking.pickup_at + timedelta(days=2), origin="Palais Coburg")
    assign(miras, fleet["mira"], fleet["sedan2"])
    page = client.get(url(key) + "?lang=en").content.decode()
    listed = page[page.index('id="other-jobs"') :]
    assert later.reference in listed and "Hotel Imperial" in listed
    assert "<a " not in listed and "Each job opens from the link in its own job message." in listed
    assert "Palais Coburg" not in page  # another chauffeur's
    before = snapshot(later)
    for other in (later, miras):  # the key opens its own job only, whatever the address says
        assert client.get(url(key, other.reference)).status_code == 404
        assert client.get(url(key, other.reference) + "calendar.ics").status_code == 404
        assert client.post(url(key, other.reference), {"state": "accepted"}).status_code == 404
    assert snapshot(later) == before and ride_state(later) is None and ride_state(booking) is None


def test_a_revoked_job_does_not_open_through_another_link_of_the_same_chauffeur(client, fleet, ride, job):
    booking, key = job
    revoked = ride(pickup=booking.pickup_at + timedelta(minutes=30), origin="Hotel Imperial", name="Ben Ott")
    assign(revoked, fleet["karl"], fleet["sedan2"])
    revoked_key = job_links.issue(revoked, fleet["karl"])[1]
    client.post(url(revoked_key), {"state": "accepted"})
    job_links.revoke(revoked.pk, actor="eva (staff)")
    before = snapshot(revoked)
    for path in (url(key, revoked.reference), url(revoked_key)):
        shown = client.get(path)
        assert shown.status_code == 404 and "Ben Ott" not in shown.content.decode()
        assert client.post(path, {"state": "on_the_way"}).status_code == 404
    assert snapshot(revoked) == before
    page = client.get(url(key)).content.decode()
    assert revoked.reference not in page and "Hotel Imperial" not in page  # not even listed


def test_a_past_job_is_neither_listed_nor_opened_through_a_live_link(client, fleet, ride, job):
    _booking, key = job
    past = ride(
        pickup=timezone.now() - timedelta(days=30),
        name="Old Passenger",
        status="completed",
        driver=fleet["karl"],
        vehicle=fleet["sedan"],
    )
    today_done = ride(
        pickup=timezone.now() - timedelta(hours=3),
        status="confirmed",
        driver=fleet["karl"],
        vehicle=fleet["sedan"],
        name="Link Expired",
    )
    link, _key = job_links.issue(today_done, fleet["karl"])
    type(link).objects.filter(pk=link.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    for old in (past, today_done):
        shown = client.get(url(key, old.reference))
        assert shown.status_code == 404 and old.name not in shown.content.decode()
    page = client.get(url(key)).content.decode()
    assert "Old Passenger" not in page and past.reference not in page and today_done.reference not in page


def test_the_own_job_still_opens_under_its_own_reference(client, job):
    booking, key = job
    assert client.get(url(key, booking.reference)).status_code == 200
    assert client.get(url(key, booking.reference) + "calendar.ics").status_code == 200


def ride_state(booking):
    booking.refresh_from_db()
    return ride.progress(booking).state


def test_the_calendar_entry_is_the_chauffeurs(client, job):
    booking, key = job
    response = client.get(url(key) + "calendar.ics")
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
            "forged": "x" * 43,
            "expired": expired_key,
            "revoked": revoked_key,
            "cancelled": cancelled_key,
            "reassigned": moved_key,
        }.items()
    }
    assert {status for status, _body in answers.values()} == {404}
    assert len({body for _status, body in answers.values()}) == 1, answers
    page = answers["forged"][1].decode()
    assert "This link opens no job" in page and "Anna Berger" not in page


def test_an_address_that_keeps_trying_keys_is_stopped_but_never_from_a_good_one(client, job):
    booking, key = job
    for attempt in range(job_page.MISSES):
        assert client.get(url(f"guess{attempt}")).status_code == 404
    stopped = client.get(url("guess-again"))
    assert stopped.status_code == 429 and int(stopped["Retry-After"]) > 0
    assert "Too many tries" in stopped.content.decode()
    assert client.get(url(key, "ANOTHER")).status_code == 429  # a good key to another job: a miss
    assert client.get(url(key)).status_code == 200  # a hotel's Wi-Fi: the chauffeur's link still opens
    assert client.post(url(key), {"state": "accepted"}).status_code == 302
    assert ride_state(booking) == RideState.ACCEPTED
    other = Client(REMOTE_ADDR="198.51.100.7")  # another address is not stopped
    assert other.get(url("guess")).status_code == 404


def test_good_keys_are_not_counted_as_tries(client, job):
    _booking, key = job
    for _attempt in range(job_page.MISSES + 5):
        assert client.get(url(key)).status_code == 200
    assert client.get(url("guess")).status_code == 404


# --- the ride's clock on the page ----------------------------------------------------------------------


@pytest.fixture
def tuesday(client, fleet, ride):
    """Karl's job on Tuesday 1 December 2026 at 10:00, accepted on Saturday 28 November at 08:11 (the clock
    stays there); its key."""
    with time_machine.travel(datetime(2026, 11, 28, 8, 11, tzinfo=VIENNA), tick=False) as clock:
        booking = ride(
            pickup=datetime(2026, 12, 1, 10, 0, tzinfo=VIENNA), text_messages=True, phone="+43 1 234"
        )
        assign(booking, fleet["karl"], fleet["sedan"])
        _link, key = job_links.issue(booking, fleet["karl"])
        client.post(url(key), {"state": "accepted"})
        yield booking, key, clock


@pytest.mark.parametrize(
    ("language", "question", "possible"),
    [
        (
            "en",
            "This ride is on Tue 01.12.2026 at 10:00 — start now?",
            "“On the way” possible from Tue 01.12.2026, 08:30.",
        ),
        (
            "de",
            "Diese Fahrt ist am Di., 01.12.2026 um 10:00 – jetzt losfahren?",
            "„Unterwegs“ möglich ab Di., 01.12.2026, 08:30.",
        ),
    ],
)
def test_days_early_the_page_asks_before_on_the_way(client, tuesday, language, question, possible):
    booking, key, _clock = tuesday
    page = client.get(url(key) + f"?lang={language}").content.decode()
    assert buttons(client.get(url(key))) == ["on_the_way"] and 'id="move-early-start"' in page
    assert 'id="move-on_the_way"' not in page and f"<li>{possible}</li>" in page
    before = snapshot(booking)
    asked = client.post(url(key), {"state": "on_the_way", "lang": language})
    assert asked.status_code == 302 and asked["Location"] == url(key) + f"?lang={language}&confirm=on_the_way"
    assert snapshot(booking) == before  # asking changes nothing and tells the traveller nothing
    page = client.get(asked["Location"]).content.decode()
    assert question in page and 'id="confirm-early-start"' in page and "jp-message error" not in page
    assert re.search(r'name="confirmed_pickup" value="2026-12-01T09:00:00\+00:00"', page)
    assert re.search(rf'id="not-now" href="{re.escape(url(key))}\?lang={language}"', page)
    moved = client.post(
        url(key), {"state": "on_the_way", "lang": language, "confirmed_pickup": "2026-12-01T09:00:00+00:00"}
    )
    assert moved["Location"] == url(key) + f"?lang={language}"
    assert ride_state(booking) == RideState.ON_THE_WAY
    assert Job.objects.filter(task_path=NEWS_TASK).count() == 1


def test_a_confirmation_for_a_ride_moved_since_is_asked_again(client, tuesday):
    booking, key, _clock = tuesday
    before = snapshot(booking)
    for stale in ("2026-11-30T09:00:00+00:00", "not a time", "2026-12-01T10:00:00"):
        again = client.post(url(key), {"state": "on_the_way", "confirmed_pickup": stale})
        assert again["Location"] == url(key) + "?confirm=on_the_way"
    assert snapshot(booking) == before


def test_arrived_and_completed_days_early_are_refused_and_send_nothing(client, tuesday):
    booking, key, _clock = tuesday
    client.post(url(key), {"state": "on_the_way", "confirmed_pickup": booking.pickup_at.isoformat()})
    page = client.get(url(key) + "?lang=en").content.decode()
    assert buttons(client.get(url(key))) == []
    assert "<li>“Arrived” possible from Tue 01.12.2026, 08:30.</li>" in page
    before = snapshot(booking)
    for target in ("arrived", "on_board", "completed", "no_show"):
        shown = client.post(url(key), {"state": target, "lang": "en"}, follow=True)
        assert 'class="jp-message error" role="alert">' in shown.content.decode()
    assert (
        "“Arrived” possible from Tue 01.12.2026, 08:30."
        in client.post(url(key), {"state": "arrived", "lang": "en"}, follow=True).content.decode()
    )
    assert snapshot(booking) == before


def test_the_confirmation_page_is_only_for_an_early_start(client, tuesday):
    booking, key, clock = tuesday
    clock.move_to(booking.pickup_at - timedelta(minutes=90))  # the window is open: no question
    page = client.get(url(key) + "?confirm=on_the_way").content.decode()
    assert 'id="confirm-start"' not in page and buttons(client.get(url(key))) == ["on_the_way"]
    assert client.post(url(key), {"state": "on_the_way"})["Location"] == url(key)
    assert ride_state(booking) == RideState.ON_THE_WAY


def test_completed_waits_for_the_pickup_and_the_page_says_so(client, tuesday):
    booking, key, clock = tuesday
    clock.move_to(booking.pickup_at - timedelta(minutes=20))
    for state in ("on_the_way", "arrived", "on_board"):
        client.post(url(key), {"state": state})
    page = client.get(url(key) + "?lang=en").content.decode()
    assert buttons(client.get(url(key))) == [] and "<li>“Completed” possible from 10:00.</li>" in page
    clock.move_to(booking.pickup_at)
    assert buttons(client.get(url(key))) == ["completed"]


def test_the_window_staff_set_is_the_pages(client, tuesday):
    booking, key, clock = tuesday
    RideDayPolicy.objects.create(pk=1, start_window_minutes=45)
    clock.move_to(booking.pickup_at - timedelta(minutes=46))
    assert "„Unterwegs“ möglich ab 09:15." in client.get(url(key)).content.decode()
    clock.move_to(booking.pickup_at - timedelta(minutes=45))
    assert buttons(client.get(url(key))) == ["on_the_way"]
