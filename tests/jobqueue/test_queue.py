"""The queue inside one process: a job is written in the transaction of the change that causes it, retried
with backoff up to its limit, kept when it fails for good, shown and run again in the admin, sent once;
lost jobs run again, the schedule re-sends what is pending, and /healthz/worker tells whether a worker beats."""

import errno
import re
import socket
import time
from datetime import timedelta

import pytest
from django.core import mail
from django.core.mail.backends import locmem
from django.db import transaction
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import get_date_max

from booking import tasks
from booking.models import Booking
from jobqueue import schedules
from jobqueue.models import Job, ScheduleState, WorkerHeartbeat
from jobqueue.worker import beat, requeue_lost_jobs
from payments.payment_updates import mark_paid
from tests.jobqueue.mailserver import SilentServer
from tests.queued import run_pending_jobs

pytestmark = pytest.mark.django_db
GERMAN, ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "de"}, {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def pending(make_booking, settings):
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"
    return make_booking(status="pending_payment", email="anna@example.com", name="Anna", locale="en")


def confirmation_jobs() -> list[Job]:
    return list(Job.objects.filter(task_path=tasks.send_confirmation.module_path))


def test_a_payment_rolled_back_leaves_no_job_and_a_committed_one_leaves_its_job(pending):
    with pytest.raises(RuntimeError), transaction.atomic():
        mark_paid(pending.pk, method="cash", user=None, actor="staff")
        raise RuntimeError("the request fails after the payment was applied")
    assert confirmation_jobs() == [] and Booking.objects.get().status == "pending_payment"
    mark_paid(pending.pk, method="cash", user=None, actor="staff")
    (job,) = confirmation_jobs()
    assert job.status == "READY" and job.args_kwargs["args"] == [pending.pk] and mail.outbox == []


class FailingBackend(locmem.EmailBackend):
    """The SMTP boundary refusing the operator's address (or every address while `down`)."""

    down = False

    def send_messages(self, messages):
        if FailingBackend.down or any("dispatch@" in message.to[0] for message in messages):
            raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
        return super().send_messages(messages)


def test_a_failed_job_waits_its_backoff_and_a_retry_does_not_resend_what_went_out(pending, settings):
    settings.EMAIL_BACKEND = f"{__name__}.FailingBackend"
    settings.JOBS_RETRY_SECONDS = 30
    mark_paid(pending.pk, method="cash", user=None, actor="staff")
    before = timezone.now()
    assert run_pending_jobs() == 1
    (job,) = confirmation_jobs()
    assert job.status == "READY" and len(job.worker_ids) == 1
    assert before + timedelta(seconds=29) < job.run_after < timezone.now() + timedelta(seconds=31)
    assert "ConnectionRefusedError" in job.traceback
    assert [message.to for message in mail.outbox] == [["anna@example.com"]]  # the customer's went out
    assert Booking.objects.get().confirmation_sent_at is None

    Job.objects.filter(pk=job.pk).update(run_after=timezone.now())  # its backoff is over
    run_pending_jobs()
    job.refresh_from_db()
    assert job.status == "READY" and len(job.worker_ids) == 2
    assert job.run_after > timezone.now() + timedelta(seconds=59)  # doubled
    assert len(mail.outbox) == 1  # the customer's mail is not sent again

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    Job.objects.filter(pk=job.pk).update(run_after=timezone.now())
    run_pending_jobs()
    job.refresh_from_db()
    assert job.status == "SUCCESSFUL"
    assert [message.to for message in mail.outbox] == [["anna@example.com"], ["dispatch@chauffeur.test"]]
    assert Booking.objects.get().confirmation_sent_at is not None


def test_a_job_that_keeps_failing_stays_failed_at_the_limit(pending, settings):
    settings.EMAIL_BACKEND = f"{__name__}.FailingBackend"
    settings.JOBS_MAX_ATTEMPTS = 3
    mark_paid(pending.pk, method="cash", user=None, actor="staff")
    for _attempt in range(3):
        Job.objects.filter(status="READY").update(run_after=timezone.now())
        run_pending_jobs()
    (job,) = confirmation_jobs()
    assert (job.status, len(job.worker_ids)) == ("FAILED", 3)
    Job.objects.filter(pk=job.pk).update(run_after=timezone.now())
    assert run_pending_jobs() == 0  # kept, not run again by itself


@pytest.fixture
def failed_job(pending, settings):
    settings.EMAIL_BACKEND = f"{__name__}.FailingBackend"
    settings.JOBS_MAX_ATTEMPTS = 1
    FailingBackend.down = True
    mark_paid(pending.pk, method="cash", user=None, actor="staff")
    run_pending_jobs()
    FailingBackend.down = False
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    (job,) = confirmation_jobs()
    assert job.status == "FAILED"
    return job


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (ENGLISH, ["Background jobs", "failed", "Last error", "Run the selected failed jobs again"]),
        (GERMAN, ["Hintergrundaufträge", "fehlgeschlagen", "Letzter Fehler", "Ausgewählte fehlgeschlagene"]),
    ],
)
def test_the_admin_lists_a_failed_job_with_its_error_in_the_staff_language(
    admin_client, failed_job, language, words
):
    listing = admin_client.get("/admin/jobs/job/", **language).content.decode()
    assert all(word in listing for word in words), words
    assert "ConnectionRefusedError" in listing
    page = admin_client.get(f"/admin/jobs/job/{failed_job.pk}/change/", **language)
    assert page.status_code == 200 and "Traceback" in page.content.decode()


def test_the_admin_runs_a_failed_job_again(admin_client, failed_job):
    answer = admin_client.post(
        "/admin/jobs/job/", {"action": "run_again", "_selected_action": [failed_job.pk]}, follow=True
    )
    assert "1 job will run again." in answer.content.decode()
    failed_job.refresh_from_db()
    assert failed_job.status == "READY" and failed_job.worker_ids == []
    assert run_pending_jobs() == 1 and len(mail.outbox) == 2
    failed_job.refresh_from_db()
    assert failed_job.status == "SUCCESSFUL"


def test_staff_without_the_retry_permission_cannot_run_jobs_again(client, django_user_model, failed_job):
    from django.contrib.auth.models import Permission

    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_job"))
    client.force_login(viewer)
    listing = client.get("/admin/jobs/job/").content.decode()
    assert "ConnectionRefusedError" in listing and "run_again" not in listing
    client.post("/admin/jobs/job/", {"action": "run_again", "_selected_action": [failed_job.pk]})
    failed_job.refresh_from_db()
    assert failed_job.status == "FAILED"


def test_jobs_of_a_vanished_worker_run_again_and_a_live_workers_stay(pending, settings):
    settings.JOBS_WORKER_LOST_SECONDS = 60
    mark_paid(pending.pk, method="cash", user=None, actor="staff")
    (job,) = confirmation_jobs()
    long_ago = timezone.now() - timedelta(minutes=5)
    Job.objects.filter(pk=job.pk).update(status="RUNNING", started_at=long_ago, worker_ids=["alive"])
    beat("alive")
    assert requeue_lost_jobs() == 0
    WorkerHeartbeat.objects.filter(worker_id="alive").update(seen_at=long_ago)
    assert requeue_lost_jobs() == 1
    job.refresh_from_db()
    assert job.status == "READY" and job.run_after == get_date_max()
    assert run_pending_jobs() == 1 and len(mail.outbox) == 2


def test_the_schedule_enqueues_pending_confirmations_once(make_booking, settings):
    settings.JOBS_SCHEDULES = {tasks.resend_confirmations.module_path: 300}
    paid = make_booking(status="paid", email="old@example.com", paid_at=timezone.now())  # paid, no job
    assert schedules.start_due() == [tasks.resend_confirmations.module_path]
    assert schedules.start_due() == []  # not due again for 300 s
    run_pending_jobs()
    assert [message.to for message in mail.outbox] == [["old@example.com"]]
    assert Booking.objects.get(pk=paid.pk).confirmation_sent_at is not None
    ScheduleState.objects.update(next_run_at=timezone.now())
    schedules.start_due()
    assert run_pending_jobs() == 1 and len(mail.outbox) == 1  # the schedule ran; nothing left to send


def test_a_schedule_does_not_start_while_its_last_run_waits(settings):
    settings.JOBS_SCHEDULES = {tasks.resend_confirmations.module_path: 1}
    assert schedules.start_due() == [tasks.resend_confirmations.module_path]
    ScheduleState.objects.update(next_run_at=timezone.now() - timedelta(seconds=5))
    assert schedules.start_due() == []
    assert Job.objects.filter(task_path=tasks.resend_confirmations.module_path).count() == 1


def test_the_worker_health_says_when_a_worker_was_last_seen(client):
    answer = client.get("/healthz/worker")
    assert answer.status_code == 503 and answer.json() == {
        "status": "unavailable",
        "lastSeen": None,
        "secondsAgo": None,
    }
    beat("worker-1")
    answer = client.get("/healthz/worker")
    assert answer.status_code == 200 and answer.json()["status"] == "ok"
    WorkerHeartbeat.objects.update(seen_at=timezone.now() - timedelta(seconds=61))
    answer = client.get("/healthz/worker")
    assert answer.status_code == 503 and answer.json()["secondsAgo"] >= 61
    assert answer["Cache-Control"].startswith("max-age=0")


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_paying_behind_a_mail_server_that_never_answers_takes_under_a_second(sandbox, settings):
    silent = SilentServer()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS = "127.0.0.1", silent.port, False
    settings.OPERATOR_EMAIL, settings.PUBLIC_BASE_URL = "dispatch@chauffeur.test", "http://testserver"
    try:
        from tests.web.test_sandbox_flow import book

        browser = Client()
        session = book(browser)
        page = browser.get(session["url"].removeprefix("http://testserver"))
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())[1]
        started = time.monotonic()
        paid = browser.post(page.request["PATH_INFO"], {"action": "pay", "csrfmiddlewaretoken": token})
        elapsed = time.monotonic() - started
        assert paid.status_code == 302 and Booking.objects.get().status == "paid"
        assert elapsed < 1, elapsed
        assert [job.status for job in confirmation_jobs()] == ["READY"]  # the worker sends it
        silent.sock.setblocking(False)
        with pytest.raises(BlockingIOError):
            silent.sock.accept()  # nobody connected to the mail server
    finally:
        silent.close()
        socket.setdefaulttimeout(None)


def test_a_confirmation_being_sent_by_the_command_makes_the_job_wait_and_not_send_twice(pending):
    mark_paid(pending.pk, method="cash", user=None, actor="staff")
    Booking.objects.filter(pk=pending.pk).update(confirmation_claimed_at=timezone.now())  # mid-send elsewhere
    run_pending_jobs()
    (job,) = confirmation_jobs()
    assert job.status == "READY" and "ConfirmationBeingSent" in job.traceback and mail.outbox == []
    Booking.objects.filter(pk=pending.pk).update(confirmation_sent_at=timezone.now())  # the other one sent
    Job.objects.filter(pk=job.pk).update(run_after=timezone.now())
    run_pending_jobs()
    job.refresh_from_db()
    assert job.status == "SUCCESSFUL" and mail.outbox == []


def test_a_heartbeat_forgets_workers_gone_for_a_day():
    beat("long-gone")
    WorkerHeartbeat.objects.update(seen_at=timezone.now() - timedelta(days=2))
    beat("worker-2")
    assert list(WorkerHeartbeat.objects.values_list("worker_id", flat=True)) == ["worker-2"]
