"""A job whose object is gone, or whose task says no retry can help (jobqueue/failures.py), fails for good at its
first attempt: no eight retries of a deleted booking's mail, and `job_gave_up` is told at once."""

import pytest
from django.core import mail
from django.utils import timezone

from booking import tasks
from booking.models import Booking
from jobqueue import failures, signals
from jobqueue.models import Job
from tests.booking.conftest import make_booking  # noqa: F401 (a fixture)
from tests.queued import run_pending_jobs

pytestmark = pytest.mark.django_db


@pytest.fixture
def gave_up():
    told = []

    def record(sender, job, **kwargs):
        told.append(job.id)

    signals.job_gave_up.connect(record)
    yield told
    signals.job_gave_up.disconnect(record)


@pytest.mark.parametrize(
    "enqueue",
    [
        lambda pk: tasks.send_confirmation.enqueue(pk),
        lambda pk: tasks.send_account_link.enqueue(pk),
        lambda pk: tasks.send_change.enqueue(pk),
        lambda pk: tasks.send_ride_news.enqueue(pk, "arrived"),
    ],
)
def test_a_deleted_bookings_job_fails_for_good_at_once(make_booking, settings, gave_up, enqueue):  # noqa: F811
    settings.JOBS_MAX_ATTEMPTS = 8
    booking = make_booking(email="anna@example.com")
    job = enqueue(booking.pk)
    Booking.objects.filter(pk=booking.pk).delete()
    assert run_pending_jobs() == 1
    stored = Job.objects.get(id=job.id)
    assert (stored.status, len(stored.worker_ids)) == ("FAILED", 1)
    assert stored.exception_class_path == "booking.models.Booking.DoesNotExist"
    Job.objects.filter(id=job.id).update(run_after=timezone.now())
    assert run_pending_jobs() == 0 and gave_up == [stored.id] and mail.outbox == []


def test_an_ordinary_failure_is_still_retried(make_booking, settings):  # noqa: F811
    settings.EMAIL_BACKEND = "tests.jobqueue.test_queue.FailingBackend"
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"  # the backend refuses this address
    booking = make_booking(email="anna@example.com")
    job = tasks.send_change.enqueue(booking.pk)
    run_pending_jobs()
    assert Job.objects.get(id=job.id).status == "READY"  # back on the queue after its backoff


@pytest.mark.parametrize(
    ("path", "permanent"),
    [
        ("booking.models.Booking.DoesNotExist", True),
        ("django.core.exceptions.ObjectDoesNotExist", True),
        ("jobqueue.failures.FailedForGood", True),
        ("sms.providers.base.SmsError", False),
        ("builtins.ConnectionRefusedError", False),
        ("no.such.module.Error", False),
        ("", False),
    ],
)
def test_which_failures_no_retry_can_mend(path, permanent):
    assert failures.is_permanent(path) is permanent
