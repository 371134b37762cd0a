"""The worker: django-tasks-db's own loop (claim a job under a row lock, run it, record the outcome) with
what it leaves out added around it: retries with backoff up to a limit, a heartbeat, jobs of a vanished
worker run again, and the schedules."""

import logging
import os
import socket
import threading
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection
from django.utils import timezone
from django.utils.crypto import get_random_string
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.management.commands.db_worker import Worker as LibraryWorker
from django_tasks_db.models import DBTaskResult, get_date_max
from django_tasks_db.utils import exclusive_transaction

from jobqueue import delivery, failures, schedules, signals
from jobqueue.models import Job, WorkerHeartbeat

logger = logging.getLogger(__name__)


def new_worker_id() -> str:
    return f"{socket.gethostname()[:30]}-{os.getpid()}-{get_random_string(8)}"


def retry_delay(attempts: int) -> timedelta:
    """Doubling from JOBS_RETRY_SECONDS after each failed attempt, at most an hour."""
    return timedelta(seconds=min(settings.JOBS_RETRY_SECONDS * 2 ** max(attempts - 1, 0), 3600))


class Worker(LibraryWorker):
    def run_task(self, db_task_result: DBTaskResult) -> None:
        with delivery.scope(f"job:{db_task_result.id}"):
            super().run_task(db_task_result)
        if db_task_result.status == TaskResultStatus.FAILED:
            retry_or_keep_failed(db_task_result)


def retry_or_keep_failed(job: DBTaskResult) -> None:
    """A failed attempt goes back on the queue after its backoff, until JOBS_MAX_ATTEMPTS; then it stays
    failed with its error, for staff to see (and run again) in the admin, and `job_gave_up` tells the
    task's app (a booking's history shows its failed message). A failure no retry can mend (its object
    is gone, or the task raised FailedForGood: jobqueue/failures.py) stays failed at once."""
    attempts = len(job.worker_ids)
    hopeless = failures.is_permanent(job.exception_class_path)
    if hopeless or attempts >= settings.JOBS_MAX_ATTEMPTS:
        why = job.exception_class_path if hopeless else f"{attempts} attempts"
        logger.error("Job %s (%s) failed for good (%s): kept as failed", job.id, job.task_path, why)
        for receiver, error in signals.job_gave_up.send_robust(sender=Job, job=job):
            if isinstance(error, Exception):
                logger.error("Job %s: %r could not record its failure", job.id, receiver, exc_info=error)
        return
    Job.objects.filter(id=job.id, status=TaskResultStatus.FAILED).update(
        status=TaskResultStatus.READY, finished_at=None, run_after=timezone.now() + retry_delay(attempts)
    )
    logger.warning("Job %s (%s) failed attempt %d: retried later", job.id, job.task_path, attempts)


def requeue_lost_jobs() -> int:
    """Jobs left running by a worker that stopped beating (killed, its host gone) run again; each such
    attempt counts toward the limit."""
    lost_before = timezone.now() - timedelta(seconds=settings.JOBS_WORKER_LOST_SECONDS)
    alive = set(WorkerHeartbeat.objects.filter(seen_at__gte=lost_before).values_list("worker_id", flat=True))
    requeued = 0
    with exclusive_transaction():
        for job in Job.objects.select_for_update().filter(
            status=TaskResultStatus.RUNNING, started_at__lt=lost_before
        ):
            if job.worker_ids and job.worker_ids[-1] in alive:
                continue
            job.status, job.run_after = TaskResultStatus.READY, get_date_max()
            job.save(update_fields=["status", "run_after"])
            logger.warning("Job %s (%s): its worker vanished, run again", job.id, job.task_path)
            requeued += 1
    return requeued


def beat(worker_id: str) -> None:
    now = timezone.now()
    WorkerHeartbeat.objects.update_or_create(worker_id=worker_id, defaults={"seen_at": now})
    WorkerHeartbeat.objects.filter(seen_at__lt=now - timedelta(days=1)).delete()  # workers long gone


class Housekeeper(threading.Thread):
    """Beside the job loop, so a long job does not stop it: the heartbeat, lost jobs, due schedules."""

    def __init__(self, worker_id: str):
        super().__init__(daemon=True, name="jobs-housekeeper")
        self.worker_id = worker_id
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            self.tick()
            self.stopping.wait(settings.JOBS_HEARTBEAT_SECONDS)
        connection.close()

    def tick(self) -> None:
        close_old_connections()
        for step in (lambda: beat(self.worker_id), requeue_lost_jobs, schedules.start_due):
            try:
                step()
            except DatabaseError:  # SQLite busy, PostgreSQL restarting: the next tick tries again
                logger.warning("Worker housekeeping step failed; trying again shortly", exc_info=True)
