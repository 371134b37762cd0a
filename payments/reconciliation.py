"""The safety net for lost webhooks, run by the worker's schedule (payments.tasks) and by
`manage.py reconcile_payments`."""

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from booking import transitions
from booking.models import BookingStatus
from payments import idempotency, payment_updates
from payments import selectors as payment_selectors
from payments.providers import payment_provider


@dataclass(frozen=True)
class Reconciled:
    pending: int
    changed: int
    differences: int
    expired: int
    forgotten: int


def reconcile_pending(*, older_than: timedelta) -> Reconciled:
    """Ask the payment provider about bookings pending for a while, and expire those whose payment page
    was never opened (the provider failed at checkout)."""
    cutoff = timezone.now() - older_than
    pending = list(payment_selectors.pending_payment_since(cutoff))
    changed = sum(
        payment_updates.reconcile(booking, payment_provider).status != booking.status for booking in pending
    )
    differences = sum(
        payment_updates.reconcile_surcharge(surcharge, payment_provider)
        for surcharge in payment_selectors.unpaid_surcharges_since(cutoff)
    )
    unpayable = list(payment_selectors.never_given_a_payment_page(cutoff))
    for booking in unpayable:
        transitions.move(booking.pk, BookingStatus.EXPIRED, actor="reconcile_payments (no payment page)")
    return Reconciled(len(pending), changed, differences, len(unpayable), idempotency.forget_expired())
