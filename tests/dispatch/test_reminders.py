"""Reminders with the real worker under a frozen clock: the worker's housekeeping starts the schedule
(jobs.worker.Housekeeper.tick), the jobs run in this process (tests/queued.py). Each reminder goes out once,
at its time and not before, whatever the ticks and workers; by e-mail, and by SMS to the fake Twilio when
the traveller chose it."""

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core import mail
from django.db import transaction

from booking.models import Booking, BookingStatus
from dispatch import reminders, tasks
from dispatch.models import Reminder, RideDayPolicy
from jobqueue import schedules
from jobqueue.models import Job
from jobqueue.worker import Housekeeper
from tests.dispatch.conftest import assign
from tests.queued import run_pending_jobs
from tests.sms.fake_twilio import sent_texts, twilio  # noqa: F401

pytestmark = pytest.mark.django_db
VIENNA = ZoneInfo("Europe/Vienna")
START = datetime(2027, 6, 7, 9, 0, tzinfo=VIENNA)  # a Monday
SCHEDULE = "dispatch.tasks.send_reminders"


@pytest.fixture(autouse=True)
def schedule(settings):
    settings.JOBS_SCHEDULES = {SCHEDULE: 300}
    settings.OPERATOR_EMAIL = ""


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def policy(db):
    return RideDayPolicy.objects.create(
        pk=1, traveller_reminder_hours=24, driver_reminder_time=time(18, 0), unassigned_alert_hours=0
    )


def worker_at(clock, moment: datetime, worker: str = "worker-a") -> int:
    """The clock at `moment`, a worker's housekeeping, then the jobs that are due; how many ran. In a test
    that runs in a transaction of its own the schedules are started as the housekeeper does (its tick also
    closes a connection left in a transaction, which that test's is); in a transactional test, the tick."""
    clock.move_to(moment)
    if transaction.get_autocommit():
        Housekeeper(worker).tick()
    else:
        schedules.start_due()
    return run_pending_jobs()


def reminder_mails(subject: str) -> list:
    return [message for message in mail.outbox if message.subject.startswith(subject)]


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # the worker's own housekeeping tick
def test_the_traveller_is_reminded_once_at_the_time_by_mail_and_sms(clock, policy, ride, twilio):  # noqa: F811
    pickup = START + timedelta(days=2)  # Wednesday 09:00
    booking = ride(pickup=pickup, locale="de", text_messages=True, phone="0664 1234567")
    due = pickup - timedelta(hours=24)

    assert worker_at(clock, due - timedelta(seconds=300)) == 1  # the schedule ran: nothing due yet
    assert worker_at(clock, due - timedelta(seconds=1)) == 0  # the schedule's next run is at `due`
    assert reminder_mails("Erinnerung") == [] and len(twilio.calls) == 0

    assert worker_at(clock, due) == 2  # the schedule, then the reminder
    (message,) = reminder_mails("Erinnerung")
    assert message.to == ["anna@example.com"]
    assert message.subject == f"Erinnerung an Ihre Chauffeur-Fahrt {booking.reference}"
    assert "Abholung:   9. Juni 2027, 09:00" in message.body and "Von:        Hotel Sacher" in message.body
    (text,) = sent_texts(twilio)
    assert text["To"] == "+436641234567"
    assert (
        f"Erinnerung an Ihre Fahrt {booking.reference}, Mi., 09.06.2027, 09:00, ab Hotel Sacher."
        in (text["Body"])
    )
    assert Reminder.objects.filter(key__startswith=f"traveller:{booking.pk}:").count() == 1

    # a second worker ticking at the same moment, and the schedule's later runs: nothing again
    assert worker_at(clock, due, worker="worker-b") == 0
    assert worker_at(clock, due + timedelta(seconds=300)) == 1  # the schedule ran, and found it sent
    assert worker_at(clock, pickup - timedelta(minutes=1)) == 1
    assert len(reminder_mails("Erinnerung")) == 1 and len(sent_texts(twilio)) == 1


def test_two_workers_running_the_schedule_send_the_reminder_once(clock, policy, ride):
    pickup = START + timedelta(days=2)
    ride(pickup=pickup)
    clock.move_to(pickup - timedelta(hours=23))
    tasks.send_reminders.enqueue()
    tasks.send_reminders.enqueue()  # as if two workers had each started a run
    assert run_pending_jobs() == 3  # both runs, one reminder
    assert len(reminder_mails("Reminder of your chauffeur ride")) == 1
    assert reminders.send_due().travellers == 0


def test_an_english_reminder_names_the_chauffeur_once_assigned(clock, policy, ride, fleet, twilio):  # noqa: F811
    pickup = START + timedelta(days=2)
    booking = ride(pickup=pickup, locale="en", text_messages=True, phone="+43 664 1234567")
    assign(booking, fleet["mira"], fleet["sedan"])
    worker_at(clock, pickup - timedelta(hours=23))
    (message,) = reminder_mails("Reminder of your chauffeur ride")
    assert "Chauffeur:  Mira Novak, phone +43 660 4445556" in message.body
    assert "Vehicle:    E-Class, W-1000A" in message.body
    (text,) = sent_texts(twilio)
    assert text["Body"].endswith(
        f"reminder of your ride {booking.reference}, Wed 09.06.2027, 09:00, from Hotel Sacher. "
        "Your chauffeur: Mira Novak, +43 660 4445556."
    )


def test_no_reminder_for_a_cancelled_ride_one_booked_late_or_with_reminders_off(clock, policy, ride):
    pickup = START + timedelta(days=2)
    ride(pickup=pickup, status=BookingStatus.CANCELLED)
    ride(pickup=pickup, status=BookingStatus.PENDING_PAYMENT, paid_at=None)
    clock.move_to(pickup - timedelta(hours=20))
    ride(pickup=pickup)  # booked within the 24 hours: its confirmation has just gone out
    assert worker_at(clock, pickup - timedelta(hours=20)) == 1
    assert mail.outbox == [] and not Reminder.objects.exists()

    RideDayPolicy.objects.filter(pk=1).update(traveller_reminder_hours=0)
    clock.move_to(START)
    ride(pickup=pickup + timedelta(hours=1))
    assert reminders.send_due(pickup - timedelta(hours=1)).travellers == 0


def test_a_ride_cancelled_after_its_reminder_was_enqueued_is_not_reminded(clock, policy, ride):
    pickup = START + timedelta(days=2)
    booking = ride(pickup=pickup)
    clock.move_to(pickup - timedelta(hours=23))
    assert reminders.send_due().travellers == 1
    Booking.objects.filter(pk=booking.pk).update(status=BookingStatus.CANCELLED)
    assert run_pending_jobs() == 1 and mail.outbox == []


def test_a_changed_pickup_time_is_reminded_again_for_the_new_time(clock, policy, ride):
    pickup = START + timedelta(days=2)
    booking = ride(pickup=pickup)
    worker_at(clock, pickup - timedelta(hours=23))
    assert len(reminder_mails("Reminder")) == 1

    later = pickup + timedelta(hours=3)
    Booking.objects.filter(pk=booking.pk).update(pickup_at=later)  # staff moved the ride
    worker_at(clock, later - timedelta(hours=23))
    assert len(reminder_mails("Reminder")) == 2
    assert "Pickup:     9 June 2027, 12:00" in reminder_mails("Reminder")[1].body
    assert Reminder.objects.filter(key__startswith=f"traveller:{booking.pk}:").count() == 2

    # moved again before its reminder's job ran: the old time's job sends nothing
    Booking.objects.filter(pk=booking.pk).update(pickup_at=later + timedelta(hours=1))
    clock.move_to(later - timedelta(hours=22))
    assert reminders.send_due().travellers == 1
    Booking.objects.filter(pk=booking.pk).update(pickup_at=later + timedelta(hours=2))
    assert run_pending_jobs() == 1 and len(reminder_mails("Reminder")) == 2


def test_each_chauffeur_gets_tomorrows_jobs_the_evening_before_in_their_language(clock, policy, ride, fleet):
    RideDayPolicy.objects.filter(pk=1).update(traveller_reminder_hours=0)
    tomorrow = START + timedelta(days=1)  # Tuesday
    karl_late = ride(pickup=tomorrow.replace(hour=15), name="Late Passenger")
    karl_early = ride(
        pickup=tomorrow.replace(hour=7),
        flight_number="OS 88",
        notes="Kindersitz",
        stops=[{"address": "Stephansdom", "wait_minutes": 20}],
    )
    mira_ride = ride(
        pickup=tomorrow.replace(hour=11), vehicle_class="business-van", stops=[{"address": "Belvedere"}]
    )
    karl_later_day = ride(pickup=tomorrow + timedelta(days=1))
    unassigned = ride(pickup=tomorrow.replace(hour=12))
    assign(karl_late, fleet["karl"], fleet["sedan"])
    assign(karl_early, fleet["karl"], fleet["sedan"])
    assign(mira_ride, fleet["mira"], fleet["van"])
    assign(karl_later_day, fleet["karl"], fleet["sedan2"])
    run_pending_jobs()
    mail.outbox.clear()

    evening = START.replace(hour=18)
    worker_at(clock, evening - timedelta(minutes=1))
    assert mail.outbox == []
    worker_at(clock, evening + timedelta(minutes=4))  # the schedule's next run
    karl_mail, mira_mail = sorted(mail.outbox, key=lambda message: message.to)
    assert karl_mail.to == ["karl@chauffeur.test"] and karl_mail.subject == "Ihre Fahrten am Di., 08.06.2027"
    body = karl_mail.body
    assert "Hallo Karl Huber" in body and "Ihre Fahrten morgen, Dienstag, 08.06.2027" in body
    assert body.index(karl_early.reference) < body.index(karl_late.reference)
    assert "07:00 Uhr" in body and "Flug:      OS 88" in body and "Kindersitz" in body
    assert "  Von:       Hotel Sacher\n  Halt 1:    Stephansdom, 20 Min. Wartezeit\n  Nach:" in body
    assert karl_later_day.reference not in body and unassigned.reference not in body
    assert mira_mail.to == ["mira@chauffeur.test"] and mira_mail.subject == "Your jobs on Tue 08.06.2027"
    assert mira_ride.reference in mira_mail.body and "11:00" in mira_mail.body
    assert "\n  Stop 1:     Belvedere\n  To:" in mira_mail.body
    assert karl_late.reference not in mira_mail.body

    worker_at(clock, evening + timedelta(minutes=10), worker="worker-b")
    worker_at(clock, evening + timedelta(hours=5))
    assert len(mail.outbox) == 2  # once each
    worker_at(clock, evening + timedelta(days=1, minutes=1))  # Tuesday evening: Wednesday's job
    (wednesday,) = mail.outbox[2:]
    assert wednesday.to == ["karl@chauffeur.test"] and karl_later_day.reference in wednesday.body


def test_a_chauffeur_without_an_email_or_rides_gets_no_reminder(clock, policy, ride, fleet):
    RideDayPolicy.objects.filter(pk=1).update(traveller_reminder_hours=0)
    fleet["mira"].email = ""
    fleet["mira"].save()
    assign(ride(pickup=START + timedelta(days=1)), fleet["mira"], fleet["sedan"])
    run_pending_jobs()
    mail.outbox.clear()
    worker_at(clock, START.replace(hour=19))
    assert mail.outbox == [] and not Reminder.objects.filter(key__startswith="driver:").exists()


def test_staff_are_alerted_once_of_a_paid_ride_close_ahead_without_a_chauffeur(
    clock, policy, ride, fleet, settings
):
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"
    RideDayPolicy.objects.filter(pk=1).update(traveller_reminder_hours=0, unassigned_alert_hours=12)
    pickup = START + timedelta(hours=20)
    lonely = ride(pickup=pickup)
    assign(ride(pickup=pickup), fleet["karl"], fleet["sedan"])
    ride(pickup=pickup, status=BookingStatus.CANCELLED)
    run_pending_jobs()
    mail.outbox.clear()

    worker_at(clock, pickup - timedelta(hours=12, seconds=1))
    assert mail.outbox == []
    worker_at(clock, pickup - timedelta(hours=12) + timedelta(seconds=299))
    (alert,) = mail.outbox
    assert alert.to == ["dispatch@chauffeur.test"]
    assert alert.subject == f"Assignment to check for paid booking {lonely.reference}"
    assert "no chauffeur is assigned to the ride at 08.06.2027 05:00 (Vienna)" in alert.body
    assert Reminder.objects.filter(key__startswith="unassigned:").count() == 1
    worker_at(clock, pickup - timedelta(hours=6))
    worker_at(clock, pickup - timedelta(hours=6), worker="worker-b")
    assert [message.to for message in mail.outbox].count(["dispatch@chauffeur.test"]) == 1


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_schedule_is_configured_and_runs_one_at_a_time(settings, clock, policy):
    assert SCHEDULE in settings.JOBS_SCHEDULES
    Housekeeper("worker-a").tick()
    Housekeeper("worker-b").tick()
    assert Job.objects.filter(task_path=SCHEDULE).count() == 1
