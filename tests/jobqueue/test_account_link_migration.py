"""The on-account link's jobs queued before the link was signed at run time lose the signed URL they held
(jobqueue/migrations/0002): the job table keeps no link, and the job still mails a fresh one."""

import pytest

from booking import tasks
from jobqueue.models import Job
from tests.booking.conftest import make_booking  # noqa: F401 (a fixture)
from tests.migrating import migrate, migrate_to_latest

BEFORE = [("jobs", "0001_initial")]
LINK = "https://chauffeur.test/booking/account?token=eyJiIjoxfQ:1tXyZ:signature"


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_queued_link_jobs_keep_the_booking_only(make_booking):  # noqa: F811
    booking = make_booking(payment_method="account", email="anna@beispiel.at")
    old = tasks.send_account_link.enqueue(booking.pk, LINK)  # as the old code queued it
    other = tasks.send_confirmation.enqueue(booking.pk)
    migrate(BEFORE)
    try:
        Job.objects.filter(id=old.id).update(args_kwargs={"args": [booking.pk, LINK], "kwargs": {}})
    finally:
        migrate_to_latest()
    assert Job.objects.get(id=old.id).args_kwargs == {"args": [booking.pk], "kwargs": {}}
    assert Job.objects.get(id=other.id).args_kwargs == {"args": [booking.pk], "kwargs": {}}
    assert LINK not in str(list(Job.objects.values_list("args_kwargs", flat=True)))
