"""The traveller's news of the ride's day with the real worker (run in this process): "on the way" and
"arrived" by e-mail, and by SMS to the fake Twilio when chosen, in the booking's language, with the
chauffeur's name, phone and vehicle; each once; a failing Twilio retried and then shown to staff."""

import errno
from datetime import timedelta

import pytest
import responses
import time_machine
from django.core import mail
from django.core.mail.backends import locmem
from django.utils import timezone

from booking.models import BookingEvent, RideState
from dispatch import ride_day
from jobqueue.models import Job
from tests.dispatch.conftest import assign
from tests.queued import run_pending_jobs
from tests.sms.fake_twilio import MESSAGES_URL, SENDER, sent_texts, twilio  # noqa: F401

pytestmark = pytest.mark.django_db
NEWS_TASK = "booking.tasks.send_ride_news"


@pytest.fixture
def assigned(fleet, ride):
    """Karl's ride in the E-Class W-1000A, in an hour (within the start window: "on the way" and "arrived"
    are open); the assignment's mails already out."""

    def make(**fields):
        booking = ride(pickup=(timezone.now() + timedelta(hours=1)).replace(microsecond=0), **fields)
        assign(booking, fleet["karl"], fleet["sedan"])
        run_pending_jobs()
        mail.outbox.clear()
        booking.refresh_from_db()
        return booking

    return make


def move(booking, state, driver):
    ride_day.advance(booking.pk, state, driver=driver, actor=f"{driver.name} (chauffeur)")


def test_on_the_way_and_arrived_reach_a_german_traveller_by_mail_and_sms(fleet, assigned, twilio):  # noqa: F811
    booking = assigned(locale="de", text_messages=True, phone="0664 123 45 67")
    karl = fleet["karl"]
    move(booking, RideState.ACCEPTED, karl)
    assert run_pending_jobs() == 0 and mail.outbox == []  # accepting is the chauffeur's, not news

    move(booking, RideState.ON_THE_WAY, karl)
    assert Job.objects.filter(task_path=NEWS_TASK, status="READY").count() == 1  # enqueued with the move
    assert run_pending_jobs() == 1
    (text,) = sent_texts(twilio)
    assert text["To"] == "+436641234567" and text["From"] == SENDER
    assert "Ihr Chauffeur Karl Huber ist unterwegs" in text["Body"]
    assert "Fahrzeug: E-Class, Kennzeichen W-1000A" in text["Body"] and "+43 660 1112223" in text["Body"]
    assert booking.reference in text["Body"]
    (message,) = mail.outbox
    assert message.to == ["anna@example.com"]
    assert message.subject == f"Ihr Chauffeur ist unterwegs ({booking.reference})"
    assert "Karl Huber, Telefon +43 660 1112223" in message.body and "E-Class, W-1000A" in message.body

    move(booking, RideState.ARRIVED, karl)
    run_pending_jobs()
    assert len(sent_texts(twilio)) == 2
    arrived = sent_texts(twilio)[1]["Body"]
    assert "Karl Huber ist da und wartet auf Sie: Hotel Sacher" in arrived and "+43 660 1112223" in arrived
    assert mail.outbox[1].subject == f"Ihr Chauffeur ist da ({booking.reference})"
    assert "Treffpunkt: Hotel Sacher" in mail.outbox[1].body


def test_an_english_traveller_without_texts_gets_the_mail_only(fleet, assigned, twilio):  # noqa: F811
    booking = assigned(locale="en", text_messages=False, phone="0664 123 45 67")
    for state in (RideState.ACCEPTED, RideState.ON_THE_WAY, RideState.ARRIVED):
        move(booking, state, fleet["karl"])
        run_pending_jobs()
    assert len(twilio.calls) == 0
    assert [message.subject for message in mail.outbox] == [
        f"Your chauffeur is on the way ({booking.reference})",
        f"Your chauffeur has arrived ({booking.reference})",
    ]
    assert "Vehicle:    E-Class, W-1000A" in mail.outbox[0].body
    assert "waiting for you:\n\nMeeting at: Hotel Sacher" in mail.outbox[1].body


def test_texts_without_a_phone_send_the_mail_only(fleet, assigned, twilio):  # noqa: F811
    booking = assigned(text_messages=True, phone="")
    move(booking, RideState.ACCEPTED, fleet["karl"])
    move(booking, RideState.ON_THE_WAY, fleet["karl"])
    run_pending_jobs()
    assert len(twilio.calls) == 0 and len(mail.outbox) == 1


def test_an_english_flight_pickup_is_told_where_the_chauffeur_waits(fleet, assigned, twilio):  # noqa: F811
    booking = assigned(text_messages=True, phone="+43 664 1234567", flight_number="OS 88", origin="VIE")
    for state in (RideState.ACCEPTED, RideState.ON_THE_WAY, RideState.ARRIVED):
        move(booking, state, fleet["karl"])
        run_pending_jobs()
    assert sent_texts(twilio)[1]["Body"].endswith(
        "your chauffeur Karl Huber has arrived and is waiting for you at arrivals (flight OS 88), VIE. "
        f"Phone: +43 660 1112223. Booking {booking.reference}."
    )


@pytest.mark.parametrize("locale", ["en", "de"])
def test_a_hotel_pickup_going_to_the_airport_is_not_met_at_arrivals_whatever_its_flight_number(
    fleet,
    assigned,
    twilio,  # noqa: F811
    locale,
):
    booking = assigned(
        locale=locale,
        text_messages=True,
        phone="+43 664 1234567",
        flight_number="OS 123",
        origin="Hotel Sacher, Philharmoniker Str. 4, 1010 Wien",
        destination="Flughafen Wien (VIE)",
    )
    for state in (RideState.ACCEPTED, RideState.ON_THE_WAY, RideState.ARRIVED):
        move(booking, state, fleet["karl"])
        run_pending_jobs()
    text, arrived = sent_texts(twilio)[1]["Body"], mail.outbox[1].body
    for said in (text, arrived):
        assert "arrivals" not in said and "Ankunftshalle" not in said and "OS 123" not in said
    assert "Hotel Sacher, Philharmoniker Str. 4, 1010 Wien" in text


def test_a_pickup_at_the_airport_is_met_at_arrivals_by_mail_too(fleet, assigned, twilio):  # noqa: F811
    booking = assigned(
        locale="de",
        flight_number="OS 88",
        origin="Flughafen Wien-Schwechat (VIE), Schwechat, Österreich",
        destination="Hotel Sacher",
    )
    for state in (RideState.ACCEPTED, RideState.ON_THE_WAY, RideState.ARRIVED):
        move(booking, state, fleet["karl"])
        run_pending_jobs()
    assert "wartet auf Sie in der Ankunftshalle (Flug OS 88)" in mail.outbox[1].body


def test_a_move_undone_and_made_again_does_not_send_the_news_twice(fleet, assigned, twilio):  # noqa: F811
    booking = assigned(text_messages=True, phone="0664 1234567")
    move(booking, RideState.ACCEPTED, fleet["karl"])
    move(booking, RideState.ON_THE_WAY, fleet["karl"])
    run_pending_jobs()
    ride_day.undo_last(booking.pk, actor="eva (staff)")
    move(booking, RideState.ON_THE_WAY, fleet["karl"])
    assert run_pending_jobs() == 1  # the job runs, and finds its message sent
    assert len(sent_texts(twilio)) == 1 and len(mail.outbox) == 1


def test_news_overtaken_before_its_job_runs_is_not_sent(fleet, assigned, twilio):  # noqa: F811
    booking = assigned(text_messages=True, phone="0664 1234567")
    for state in (RideState.ACCEPTED, RideState.ON_THE_WAY, RideState.ARRIVED):
        move(booking, state, fleet["karl"])
    assert run_pending_jobs() == 2
    assert [message.subject for message in mail.outbox] == [
        f"Your chauffeur has arrived ({booking.reference})"
    ]
    assert ["has arrived" in text["Body"] for text in sent_texts(twilio)] == [True]


def test_a_refused_move_enqueues_no_news(fleet, assigned, twilio):  # noqa: F811
    booking = assigned(text_messages=True, phone="0664 1234567")
    with pytest.raises(ride_day.RideMoveRefused):
        move(booking, RideState.ON_THE_WAY, fleet["karl"])  # not accepted yet
    assert not Job.objects.filter(task_path=NEWS_TASK).exists()


def test_a_failing_twilio_is_retried_then_shown_to_staff(settings, fleet, assigned, twilio, admin_client):  # noqa: F811
    settings.JOBS_MAX_ATTEMPTS, settings.JOBS_RETRY_SECONDS = 3, 30
    twilio.replace(responses.POST, MESSAGES_URL, status=500, body="Internal Server Error")
    with time_machine.travel(timezone.now(), tick=False) as clock:
        booking = assigned(locale="de", text_messages=True, phone="0664 1234567")
        move(booking, RideState.ACCEPTED, fleet["karl"])
        move(booking, RideState.ON_THE_WAY, fleet["karl"])
        assert run_pending_jobs() == 1
        job = Job.objects.get(task_path=NEWS_TASK)
        assert (job.status, len(job.worker_ids)) == ("READY", 1)
        clock.shift(timedelta(seconds=29))
        assert run_pending_jobs() == 0  # waits its backoff
        clock.shift(timedelta(seconds=2))
        assert run_pending_jobs() == 1
        clock.shift(timedelta(seconds=61))  # the backoff doubled
        assert run_pending_jobs() == 1
    job.refresh_from_db()
    assert (job.status, len(job.worker_ids)) == ("FAILED", 3)
    assert len(sent_texts(twilio)) == 3 and len(mail.outbox) == 1  # the mail went out once
    (failed,) = BookingEvent.objects.filter(booking=booking, text__startswith="Text message")
    assert failed.text == (
        "Text message to 0664 1234567 failed: Twilio refused the message (500): Internal Server Error"
    )
    page = admin_client.get(f"/admin/booking/booking/{booking.pk}/change/", HTTP_ACCEPT_LANGUAGE="de")
    assert "SMS an 0664 1234567 fehlgeschlagen: Twilio refused the message (500)" in page.content.decode()
    page = admin_client.get(f"/admin/booking/booking/{booking.pk}/change/", HTTP_ACCEPT_LANGUAGE="en")
    assert "Text message to 0664 1234567 failed: Twilio refused" in page.content.decode()
    listing = admin_client.get("/admin/jobs/job/?status__exact=FAILED", HTTP_ACCEPT_LANGUAGE="en")
    assert "send_ride_news" in listing.content.decode() and "Twilio refused the message (500)" in (
        listing.content.decode()
    )


def test_a_job_still_retrying_shows_nothing_in_the_history(settings, fleet, assigned, twilio):  # noqa: F811
    settings.JOBS_MAX_ATTEMPTS = 3
    twilio.replace(responses.POST, MESSAGES_URL, status=503, body="busy")
    booking = assigned(text_messages=True, phone="0664 1234567")
    move(booking, RideState.ACCEPTED, fleet["karl"])
    move(booking, RideState.ON_THE_WAY, fleet["karl"])
    before = booking.history.count()
    run_pending_jobs()
    assert booking.history.count() == before
    assert Job.objects.get(task_path=NEWS_TASK).status == "READY"


class RefusingBackend(locmem.EmailBackend):
    """The mail server refusing every message (the SMTP boundary)."""

    def send_messages(self, messages):
        raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")


def test_a_mail_that_keeps_failing_is_shown_to_staff_too(settings, fleet, assigned):
    booking = assigned(text_messages=False)
    settings.JOBS_MAX_ATTEMPTS, settings.EMAIL_BACKEND = 1, f"{__name__}.RefusingBackend"
    move(booking, RideState.ACCEPTED, fleet["karl"])
    move(booking, RideState.ON_THE_WAY, fleet["karl"])
    run_pending_jobs()
    assert Job.objects.get(task_path=NEWS_TASK).status == "FAILED"
    (failed,) = BookingEvent.objects.filter(booking=booking, text__startswith="Message")
    assert failed.text == "Message (send_ride_news) failed: [Errno 111] Connection refused"
