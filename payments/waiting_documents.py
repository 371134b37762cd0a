"""Invoices and credit notes that waited for the seller's legal details (operator_profile/seller.py), issued
once the operator profile names them all: by the job staff's save of a complete profile enqueues, and by the
worker's schedule (JOBS_WAITING_DOCUMENTS_SECONDS) for anything a failed job left behind. Each booking's
documents are issued in the order they arose (the ride invoice as it was when paid, then its supplementary
invoices, then the credit notes that correct them); a company's collective invoice of a past month with rides
that waited is issued as the monthly schedule would have."""

import logging
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from booking import selectors
from booking.models import Booking, PaymentMethod
from invoicing import invoices, mails
from invoicing.collective_invoices import VIENNA, month_bounds, month_of
from operator_profile import seller
from payments import collective_invoices, refunds, surcharges
from payments.models import Refund, RefundStatus, Surcharge

logger = logging.getLogger(__name__)


def issue_waiting() -> list[str]:
    """Every document that waits, issued now if the seller's details are complete; the numbers issued."""
    if not seller.complete():
        return []
    waiting = Booking.objects.filter(documents_waiting_since__isnull=False)
    numbers = []
    for pk in (
        waiting.exclude(payment_method=PaymentMethod.ACCOUNT)
        .order_by("documents_waiting_since", "pk")
        .values_list("pk", flat=True)
    ):
        numbers += _issue_for(pk)
    numbers += _issue_collective(waiting.filter(payment_method=PaymentMethod.ACCOUNT))
    if numbers:
        logger.info("Issued what waited for the seller's legal details: %s", ", ".join(numbers))
    return numbers


def _issue_for(pk: int) -> list[str]:
    with transaction.atomic():
        booking = selectors.locked_booking(pk)  # the booking first, as every money path locks it
        since = booking.documents_waiting_since
        if since is None:  # another run issued them meanwhile
            return []
        booking.documents_waiting_since = None  # its documents are issued in order now
        issued = []
        ride = invoices.issue(booking) if booking.invoice_draft is not None else None
        if ride is not None:
            issued.append(ride.number)
            if booking.confirmation_sent_at is not None:  # else the confirmation carries it
                mails.send_invoice.enqueue(ride.pk)
        for surcharge in Surcharge.objects.filter(
            booking=booking, status=Surcharge.Status.PAID, invoice__isnull=True
        ).order_by("payment__received_at", "pk"):
            supplementary = surcharges.supplementary_invoice(booking, surcharge)
            issued += [supplementary.number] if supplementary else []
        for refund in _refunds_waiting(booking, since):
            refund.booking = booking  # the row this transaction holds
            note = refunds.credit_note(refund)
            issued += [note.number] if note else []
        if booking.documents_waiting_since is None:  # none held again (the details went missing meanwhile)
            Booking.objects.filter(pk=pk).update(documents_waiting_since=None)
    return issued


def _refunds_waiting(booking: Booking, since: datetime):
    """The refunds done since its documents began to wait and not yet credited (older ones without a credit
    note were never invoiced: paid before invoices existed)."""
    return Refund.objects.filter(
        booking=booking, status=RefundStatus.SUCCEEDED, credit_note__isnull=True, updated_at__gte=since
    ).order_by("updated_at", "pk")


def _issue_collective(waiting_on_account) -> list[str]:
    """The collective invoices of past months whose rides waited; this month's are the schedule's, later."""
    this_month = month_of(timezone.localdate(timezone=VIENNA))
    start = month_bounds(this_month)[0]
    past = waiting_on_account.filter(pickup_at__lt=start)
    months = sorted(
        {
            month_of(timezone.localtime(pickup, VIENNA).date())
            for pickup in past.values_list("pickup_at", flat=True)
        }
    )
    past.update(documents_waiting_since=None)  # a month that must wait again marks its rides again
    return [invoice.number for month in months for invoice in collective_invoices.issue_month(month)]
