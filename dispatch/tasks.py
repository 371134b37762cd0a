"""Dispatch's jobs on the queue (jobqueue/): the job's messages, the reminders' schedule and the chauffeurs'
evening mail."""

from django_tasks import task

from booking import notifications
from dispatch import arrivals, job_links, reminders
from dispatch.models import JobLink


@task()
def send_assignment_with_job_link(booking_id: int, replaced_driver_id: int | None, job_link_id: int) -> None:
    """The chauffeur's job with its link (the key is written here from the link, never queued), the
    traveller's chauffeur, and the job's withdrawal for a chauffeur replaced."""
    job_url = job_links.job_url(job_links.key_of(JobLink.objects.get(pk=job_link_id)))
    notifications.send_assignment_mails(booking_id, replaced_driver_id, job_url)


@task()
def send_reminders() -> dict:
    """Scheduled (settings.JOBS_SCHEDULES, JOBS_REMINDERS_SECONDS): enqueue the reminders that are due."""
    enqueued = reminders.send_due()
    return {
        "travellers": enqueued.travellers,
        "drivers": enqueued.drivers,
        "unassigned": enqueued.unassigned,
        "papers": enqueued.papers,
    }


@task()
def follow_flights() -> dict:
    """Scheduled (settings.JOBS_SCHEDULES, JOBS_FLIGHTS_SECONDS): ask about the flights now due."""
    polled = arrivals.poll_due()
    return {"asked": polled.asked, "moved": polled.moved, "budgetSpent": polled.budget_spent}
