"""The chauffeur's job links (dispatch/job_links.py): one issued with each assignment and mailed with the job
(only its hash stored), opening the job until the policy's hours after the ride's end; revoked by staff, by
a reassignment, and closed for a cancelled booking. Every refusal answers alike."""

import hashlib
import json
import re
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from booking.models import BookingEvent
from dispatch import changes, job_links, windows
from dispatch.models import JobLink, RideDayPolicy
from jobqueue.models import Job
from payments import cancellation
from tests.dispatch.conftest import assign

pytestmark = pytest.mark.django_db
LINK = re.compile(r"https://chauffeur\.test/chauffeur/job/([\w.-]+)/")


@pytest.fixture(autouse=True)
def public_address(settings):
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"


def key_in(message) -> str:
    return LINK.search(message.body)[1]


def assigned_with_key(booking, driver, vehicle, capture) -> str:
    """Assign, run the job's e-mail, and read the key the driver got."""
    mail.outbox.clear()
    with capture(execute=True):
        assign(booking, driver, vehicle)
    (job,) = [
        message for message in mail.outbox if message.to == [driver.email] and "entf" not in message.subject
    ]
    return key_in(job)


def test_the_job_mail_carries_the_link_and_the_calendar_entry_and_only_the_hash_is_stored(
    fleet, ride, django_capture_on_commit_callbacks
):
    booking = ride(locale="de")
    key = assigned_with_key(booking, fleet["karl"], fleet["sedan"], django_capture_on_commit_callbacks)
    job = mail.outbox[0]
    assert (
        f"Ihre Fahrt am Handy (Status melden, Navigation): https://chauffeur.test/chauffeur/job/{key}/"
        in job.body
    )
    ((name, content, media_type),) = job.attachments
    assert (name, media_type) == (f"{booking.reference}.ics", "text/calendar")
    assert "BEGIN:VEVENT" in content and f"/chauffeur/job/{key}/" in content.replace("\r\n ", "")
    link = JobLink.objects.get()
    assert link.key_hash == hashlib.sha256(key.encode()).hexdigest() and len(key) >= 40
    assert not JobLink.objects.filter(key_hash=key).exists()  # the key itself is nowhere in the table
    queued = list(Job.objects.values_list("args_kwargs", flat=True))
    assert queued and not any(key in json.dumps(args) for args in queued)  # nor in the queue
    assert job_links.key_of(link) == key  # written again from the link and the secret key


def test_a_key_signed_with_another_secret_key_opens_nothing(
    fleet, ride, settings, django_capture_on_commit_callbacks
):
    booking = ride()
    key = assigned_with_key(booking, fleet["karl"], fleet["sedan"], django_capture_on_commit_callbacks)
    assert job_links.resolve(key) is not None
    settings.SECRET_KEY = "another-secret-key-" + "y" * 40
    link = JobLink.objects.get()
    forged = job_links.key_of(link)
    assert forged != key and job_links.resolve(forged) is None
    assert (link.booking, link.driver) == (booking, fleet["karl"])
    end = windows.ride_window(booking).end
    assert link.expires_at == end + timedelta(hours=12)  # the policy's default
    opened = job_links.resolve(key)
    assert (opened.booking, opened.driver) == (booking, fleet["karl"])


def test_an_english_chauffeur_reads_the_link_in_english(fleet, ride, django_capture_on_commit_callbacks):
    key = assigned_with_key(ride(), fleet["mira"], fleet["sedan"], django_capture_on_commit_callbacks)
    assert (
        "Your job on your phone (report its progress, navigate): https://chauffeur.test"
        in mail.outbox[0].body
    )
    assert job_links.resolve(key).driver == fleet["mira"]


def test_a_link_expires_the_policys_hours_after_the_rides_end(fleet, ride):
    RideDayPolicy.objects.create(pk=1, link_valid_hours=2)
    booking = ride()
    assign(booking, fleet["karl"], fleet["sedan"])
    link, key = job_links.issue(booking, fleet["karl"])
    end = windows.ride_window(booking).end
    assert link.expires_at == end + timedelta(hours=2)
    with time_machine.travel(end + timedelta(hours=2) - timedelta(seconds=1), tick=False):
        assert job_links.resolve(key) is not None
    with time_machine.travel(end + timedelta(hours=2), tick=False):
        assert job_links.resolve(key) is None


def test_a_reassignment_revokes_the_first_chauffeurs_link(fleet, ride, django_capture_on_commit_callbacks):
    booking = ride()
    karls = assigned_with_key(booking, fleet["karl"], fleet["sedan"], django_capture_on_commit_callbacks)
    miras = assigned_with_key(booking, fleet["mira"], fleet["sedan"], django_capture_on_commit_callbacks)
    assert job_links.resolve(karls) is None and job_links.resolve(miras).driver == fleet["mira"]
    assert JobLink.objects.get(driver=fleet["karl"]).revoked_at is not None
    assert "chauffeur/job/" not in mail.outbox[-1].body  # Karl's "job is off" mail carries no link


def test_staff_revoke_the_link_and_the_job_stays_assigned(fleet, ride):
    booking = ride()
    assign(booking, fleet["karl"], fleet["sedan"])
    _link, key = job_links.issue(booking, fleet["karl"])
    assert job_links.revoke(booking.pk, actor="eva (staff)") == 2  # the assignment's and this one
    assert job_links.resolve(key) is None and job_links.live(booking) == []
    booking.refresh_from_db()
    assert booking.driver == fleet["karl"] and booking.status == "confirmed"
    event = BookingEvent.objects.filter(text="Job link revoked").get()
    assert event.actor == "eva (staff)"
    assert job_links.revoke(booking.pk, actor="eva (staff)") == 0  # nothing left: no second entry
    assert BookingEvent.objects.filter(text="Job link revoked").count() == 1


def test_a_cancelled_booking_closes_its_link(fleet, ride, sandbox):
    booking = ride(payment_provider="sandbox", payment_intent_id="sbx_pi_1")
    assign(booking, fleet["karl"], fleet["sedan"])
    _link, key = job_links.issue(booking, fleet["karl"])
    assert job_links.resolve(key) is not None
    cancellation.cancel(booking.pk, actor="customer")
    assert job_links.resolve(key) is None
    assert job_links.live(booking) == []


@pytest.mark.parametrize("key", ["", "x", "a" * 43, "a" * 5000, "../../admin", "ключ"])
def test_a_forged_key_opens_nothing(fleet, ride, key):
    assign(ride(), fleet["karl"], fleet["sedan"])
    assert job_links.resolve(key) is None


def test_a_moved_ride_moves_its_links_expiry(fleet, ride, sandbox):
    booking = ride(distance_km="21.8", in_zone_a=True)
    assign(booking, fleet["karl"], fleet["sedan"])
    later = booking.pickup_at + timedelta(days=1)
    changes.change_ride(
        booking.pk, pickup=later, vehicle_class="executive", through_provider=False, actor="eva"
    )
    booking.refresh_from_db()
    link = JobLink.objects.get()
    assert link.expires_at == windows.ride_window(booking).end + timedelta(hours=12)
    assert link.expires_at > later > timezone.now()
