"""Dispatch's jobs on the queue (jobs/): the reminders' schedule and the chauffeurs' evening mail."""

from django_tasks import task

from dispatch import reminders


@task()
def send_reminders() -> dict:
    """Scheduled (settings.JOBS_SCHEDULES, JOBS_REMINDERS_SECONDS): enqueue the reminders that are due."""
    enqueued = reminders.send_due()
    return {"travellers": enqueued.travellers, "drivers": enqueued.drivers, "unassigned": enqueued.unassigned}


@task()
def send_driver_reminder(driver_id: int, day_iso: str) -> None:
    reminders.send_driver_reminder(driver_id, day_iso)
