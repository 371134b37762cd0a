"""Run the queued jobs in this process, as the worker would (tests of what a job does; the worker process
itself is proven in tests/jobqueue/)."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction
from django_tasks.signals import task_enqueued
from django_tasks_db.models import DBTaskResult

from jobqueue.worker import Worker


def run_pending_jobs(*, leave: frozenset = frozenset()) -> int:
    """Run every job that is due (but those in `leave`), including the jobs those enqueue; a job that
    fails waits for its backoff, so each runs once here. How many ran."""
    worker = Worker(
        queue_names=["*"],
        excluded_queue_names=[],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test-process",
    )
    ran = 0
    while (job := DBTaskResult.objects.ready().exclude(id__in=leave).first()) is not None:
        job.claim(worker.worker_id)
        worker.run_task(job)
        ran += 1
    return ran


def waiting_job_ids() -> frozenset:
    return frozenset(DBTaskResult.objects.ready().values_list("id", flat=True))


@contextmanager
def worker_after_each_commit() -> Iterator[None]:
    """For tests on real transactions: each commit that enqueued a job runs the due jobs right after it."""

    def run_after_commit(sender, task_result, **kwargs):
        transaction.on_commit(run_pending_jobs)

    task_enqueued.connect(run_after_commit)
    try:
        yield
    finally:
        task_enqueued.disconnect(run_after_commit)
