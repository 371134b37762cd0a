"""The booking's e-mails as jobs on the queue (jobqueue/): enqueued in the transaction of the change that
causes them, sent by the worker, retried until delivered. Arguments are plain JSON (ids, text)."""

from decimal import Decimal

from django_tasks import task
from django_tasks_db.compat import TaskResultStatus

from booking import notifications, ride_messages, selectors
from booking.models import RideStep
from jobqueue import delivery
from jobqueue.models import Job


@task()
def send_confirmation(booking_id: int) -> None:
    # Scoped by booking, not by job: a confirmation re-enqueued later never repeats a mail that went out.
    with delivery.scope(f"confirmation:{booking_id}"):
        notifications.deliver_confirmation(booking_id)


@task()
def send_cancellation(booking_id: int) -> None:
    notifications.send_cancellation(booking_id)


@task()
def send_assignment_without_job_link(booking_id: int, replaced_driver_id: int | None = None) -> None:
    """The assignment's mails without the chauffeur's job link, for jobs that carry no link id; nothing
    enqueues it (dispatch.tasks.send_assignment_with_job_link does), it serves queued jobs only."""
    notifications.send_assignment_mails(booking_id, replaced_driver_id)


@task()
def send_change(booking_id: int) -> None:
    notifications.send_change(booking_id)


@task()
def send_payment_link(booking_id: int, url: str, amount: str, surcharge_id: int | None = None) -> None:
    notifications.send_payment_link(booking_id, url, Decimal(amount), surcharge_id)


@task()
def send_account_link(booking_id: int, url: str = "") -> None:
    """The booking page's one-time link that confirms a booking on account (booking/on_account.py), signed
    when the job runs: the job's arguments hold no secret. A job that still carries a `url` gets its link
    signed anew all the same."""
    with delivery.scope(f"account-link:{booking_id}"):
        notifications.send_account_link(booking_id)


@task()
def send_after_ride(booking_id: int, step_id: int, statement: dict) -> None:
    # Scoped by the ride's move: the statement of one end of the ride goes out once, however often queued.
    if RideStep.objects.filter(pk=step_id, undone_at__isnull=False).exists():
        return  # staff undid that end of the ride meanwhile: its statement no longer holds
    with delivery.scope(f"after-ride:{step_id}"):
        notifications.send_after_ride(booking_id, statement)


@task()
def send_charge_withdrawn(booking_id: int, step_id: int, correction: dict) -> None:
    """The correction of an undone end of the ride: sent when the traveller heard of its charge (its
    statement went out) or money goes back; once per undone move."""
    told = delivery.went_out(f"after-ride:{step_id}")
    if not told and not Decimal(correction.get("back", "0")):
        return
    with delivery.scope(f"after-ride-undone:{step_id}"):
        notifications.send_charge_withdrawn(booking_id, correction)


@task()
def alert_operator(booking_id: int, reason: str, topic: str = "Payment") -> None:
    notifications.alert_operator(booking_id, reason, topic=topic)


@task()
def resend_confirmations() -> int:
    """Scheduled: every paid booking whose confirmation has not gone out gets a confirmation job, unless
    one exists already (waiting, running, or failed: a failed one staff run again from the admin)."""
    with_job = {
        job.args_kwargs["args"][0] if job.args_kwargs["args"] else job.args_kwargs["kwargs"].get("booking_id")
        for job in Job.objects.filter(task_path=send_confirmation.module_path).exclude(
            status=TaskResultStatus.SUCCESSFUL
        )
    }
    pending = selectors.awaiting_confirmation().exclude(pk__in=with_job).values_list("pk", flat=True)
    for booking_id in pending:
        send_confirmation.enqueue(booking_id)
    return len(pending)


@task()
def send_ride_news(booking_id: int, state: str) -> None:
    """The chauffeur is on the way, or has arrived (dispatch/ride_day.py enqueues it with the move). Scoped by
    the ride and state: a move undone and made again does not send the same news twice."""
    with delivery.scope(f"ride:{booking_id}:{state}"):
        ride_messages.send_ride_news(booking_id, state)


@task()
def send_pickup_moved(
    booking_id: int, move_id: int, pickup_iso: str, previous_iso: str, landing_iso: str, landed: bool
) -> None:
    """The pickup its flight moved (dispatch/arrivals.py), once per move (its history entry)."""
    with delivery.scope(f"pickup-moved:{booking_id}:{move_id}"):
        ride_messages.send_pickup_moved(booking_id, pickup_iso, previous_iso, landing_iso, landed)


@task()
def send_traveller_reminder(booking_id: int, pickup_iso: str) -> None:
    """The traveller's reminder before the pickup (dispatch/reminders.py enqueues it once per pickup time)."""
    with delivery.scope(f"reminder:{booking_id}:{pickup_iso}"):
        ride_messages.send_traveller_reminder(booking_id, pickup_iso)
