"""Payments' work that can wait, as jobs on the queue (jobqueue/): provider calls the answer does not need,
and the scheduled reconciliation."""

from datetime import timedelta

from django.utils import timezone
from django_tasks import task

from invoicing.collective_invoices import VIENNA, previous_month
from payments import after_ride, collective_invoices, payment_updates, waiting_documents
from payments.providers import payment_provider
from payments.reconciliation import reconcile_pending

RECONCILE_AFTER = timedelta(minutes=30)  # younger pending bookings are left to their webhooks


@task()
def close_checkout(booking_id: int) -> None:
    payment_updates.close_checkout(booking_id, payment_provider)


@task()
def settle_after_ride(booking_id: int, step_id: int, statement: dict, keep_cents: int | None = None) -> None:
    """The provider's part of billing after the ride (payments/after_ride.py); retried when it fails."""
    after_ride.settle(booking_id, step_id, statement, keep_cents)


@task()
def reconcile_payments() -> dict:
    """Scheduled (JOBS_RECONCILE_SECONDS): what `manage.py reconcile_payments` does."""
    return vars(reconcile_pending(older_than=RECONCILE_AFTER))


@task()
def issue_collective_invoices() -> list[str]:
    """Scheduled (JOBS_COLLECTIVE_INVOICES_SECONDS): last month's collective invoices (Vienna) still missing,
    each with its e-mail job. The first run of the month issues them; later runs catch up on what a worker
    that was down missed, and find nothing otherwise."""
    month = previous_month(timezone.localdate(timezone=VIENNA))
    return [invoice.number for invoice in collective_invoices.issue_month(month)]


@task()
def issue_waiting_documents() -> list[str]:
    """Scheduled (JOBS_WAITING_DOCUMENTS_SECONDS), and enqueued when staff save a profile whose legal details
    are complete: the invoices and credit notes that waited for them (payments/waiting_documents.py)."""
    return waiting_documents.issue_waiting()


def seller_details_complete(sender, **kwargs) -> None:
    """operator_profile.seller.details_complete (connected in payments/apps.py): issue what waited, in the job
    queue, enqueued in the transaction that saved the profile."""
    issue_waiting_documents.enqueue()
