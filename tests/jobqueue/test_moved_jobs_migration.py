"""Jobs that moved beside their work (jobqueue/migrations/0003): rows queued, failed or done under a job's old
path take its new one, so the worker still finds the task and "run again" still works; back again on a
migration backwards."""

from importlib import import_module

import pytest
from django.utils.module_loading import import_string
from django_tasks.base import Task

from jobqueue.models import Job
from payments import refunds
from tests.migrating import migrate, migrate_to_latest

BEFORE = [("jobs", "0002_account_link_jobs_without_their_link")]
OLD = "payments.tasks.send_refund"


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_job_queued_under_its_old_path_runs_under_its_new_one():
    job = refunds.send_refund.enqueue(0)
    migrate(BEFORE)
    try:
        Job.objects.filter(id=job.id).update(task_path=OLD)  # as the old code queued it
        assert Job.objects.get(id=job.id).task_path == OLD
    finally:
        migrate_to_latest()
    moved = Job.objects.get(id=job.id).task_path
    assert moved == "payments.refunds.send_refund"
    assert isinstance(import_string(moved), Task)
    migrate(BEFORE)
    try:
        assert Job.objects.get(id=job.id).task_path == OLD
    finally:
        migrate_to_latest()


def test_every_new_path_names_a_job():
    """A path one migration moved a job to that a later one moved again counts as the later one's."""
    moves = [
        import_module(f"{app}.migrations.{name}").MOVED
        for app, name in [
            ("jobqueue", "0003_jobs_beside_their_work"),
            ("jobqueue", "0004_jobs_under_renamed_packages"),
            ("oauth", "0003_sign_in_code_mails_follow"),
            ("invoicing", "0003_mail_jobs_follow"),
        ]
    ]
    paths: set[str] = set()
    for moved in moves:
        paths = {moved.get(path, path) for path in paths} | set(moved.values())
    assert all(moves) and all(isinstance(import_string(path), Task) for path in paths)
