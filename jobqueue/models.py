"""What the queue library (django-tasks-db: one row per job) leaves to us: which workers are alive, when each
schedule runs next, and which mails a job already handed over."""

from django.db import models
from django.utils.translation import gettext_lazy as _
from django_tasks_db.models import DBTaskResult


class Job(DBTaskResult):
    """The library's job row, shown in the admin under our own names."""

    class Meta:
        proxy = True
        verbose_name = _("job")
        verbose_name_plural = _("jobs")
        permissions = [("retry_job", _("Can run a job again"))]


class WorkerHeartbeat(models.Model):
    """A worker writes its row every few seconds, also while a job runs: a job whose worker stopped writing
    is run again, and /healthz/worker answers from the newest row."""

    worker_id = models.CharField(max_length=64, primary_key=True)
    seen_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.worker_id


class ScheduleState(models.Model):
    """One row per schedule, locked while a worker decides to start it: one run at a time."""

    task_path = models.CharField(max_length=200, primary_key=True)
    next_run_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.task_path


class Delivery(models.Model):
    """A mail a job handed over (key: the job or the booking, the recipient and the subject), so a retried
    job never sends it twice."""

    key = models.CharField(max_length=255, unique=True)
    delivered_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.key
