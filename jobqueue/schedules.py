"""Schedules instead of cron: each due schedule becomes a job on the queue (retried like any other). The
schedule's row is locked while a worker decides, and no new run starts while one is waiting or running, so
any number of workers start each run once."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.module_loading import import_string
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.utils import exclusive_transaction

from jobqueue.models import Job, ScheduleState


def start_due() -> list[str]:
    """Enqueue every schedule whose time has come; the task paths started."""
    started = []
    for task_path, interval in settings.JOBS_SCHEDULES.items():
        if interval and _start_if_due(task_path, timedelta(seconds=interval)):
            started.append(task_path)
    return started


def _start_if_due(task_path: str, interval: timedelta) -> bool:
    now = timezone.now()
    ScheduleState.objects.bulk_create(
        [ScheduleState(task_path=task_path, next_run_at=now)], ignore_conflicts=True
    )
    with exclusive_transaction():
        state = ScheduleState.objects.select_for_update().get(task_path=task_path)
        if state.next_run_at > now:
            return False
        unfinished = (TaskResultStatus.READY, TaskResultStatus.RUNNING)
        if Job.objects.filter(task_path=task_path, status__in=unfinished).exists():
            return False  # the last run is still waiting or running: one at a time
        import_string(task_path).enqueue()
        state.next_run_at = now + interval
        state.save(update_fields=["next_run_at"])
    return True
