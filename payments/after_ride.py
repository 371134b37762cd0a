"""Money after the ride, the provider's part: dispatch/ride_billing.py recorded in the chauffeur's
move what the traveller owes or gets back; this job gives back what was paid beyond a no-show fee, opens
the payment page of what is owed on a booking paid by checkout, and tells the traveller what and why.

Each provider call has a transaction of its own, and each is worked out from what is recorded now, so a
retry (the queue's, after a provider failure or a lost worker) does only what is still to do: a refund
given back once leaves nothing above the fee, an opened page is not opened again. A move staff undid
meanwhile is billed no more. When the provider fails, the booking's history says so once (staff see it
on the booking's page, the job in Background jobs) and the job is tried again."""

import logging

from django.db import transaction

from apikit.errors import DomainError
from booking import history, selectors
from booking import tasks as booking_tasks
from booking.models import RideStep
from payments import refunds, surcharges
from payments.models import Refund, Surcharge

logger = logging.getLogger(__name__)
ACTOR = "billing after the ride"
PROVIDER_FAILED = "Billing after the ride: the payment provider failed ({error}); it is tried again."
BEYOND_THE_FEE = "No-show: what was paid beyond the fee."  # the refund's reason


def settle(booking_id: int, step_id: int, statement: dict, keep_cents: int | None) -> None:
    """`statement` says what was charged (for the e-mail); `keep_cents`, for a no-show, the fee kept of
    what was paid (the rest goes back)."""
    try:
        if keep_cents is not None and not _give_back_beyond(booking_id, step_id, keep_cents):
            return
        url = _open_pages(booking_id, step_id)
    except DomainError as error:  # PaymentError, or a refund the provider cannot make now
        _tell_staff_once(booking_id, step_id, error)
        raise
    if url is None:
        return
    with transaction.atomic():
        if _still_on(booking_id, step_id):
            booking_tasks.send_after_ride.enqueue(booking_id, step_id, {**statement, "payment_url": url})


def _give_back_beyond(booking_id: int, step_id: int, keep_cents: int) -> bool:
    """Give back what was received beyond the fee kept; False when the move was undone meanwhile."""
    with transaction.atomic():
        booking = selectors.locked_booking(booking_id)
        if not _still_on(booking_id, step_id):
            return False
        back = refunds.refundable_cents(booking) - keep_cents
        if back > 0:
            refunds.refund(booking, back, reason=BEYOND_THE_FEE, actor=ACTOR)
    return True


def _open_pages(booking_id: int, step_id: int) -> str | None:
    """Open the payment page of each ride charge owed online that has none yet; the newest page's address
    ("" when nothing is to be paid online), or None when the move was undone meanwhile."""
    with transaction.atomic():
        booking = selectors.locked_booking(booking_id)
        if not _still_on(booking_id, step_id):
            return None
        url = ""
        owed = booking.surcharges.select_for_update().filter(
            status=Surcharge.Status.PENDING, reason__in=surcharges.RIDE_CHARGES, method=Refund.Method.PROVIDER
        )
        for surcharge in owed:
            if not surcharge.provider_session_id:
                surcharges.open_page(booking, surcharge)
                history.record(
                    booking,
                    history.Kind.PAYMENT,
                    history.said(
                        "Payment link for {what} of {amount} sent.",
                        what=history.surcharge_reason(surcharge.reason),
                        amount=history.eur(surcharge.amount_cents),
                    ),
                    actor=ACTOR,
                )
            url = surcharge.payment_url
    return url


def _still_on(booking_id: int, step_id: int) -> bool:
    return RideStep.objects.filter(pk=step_id, booking_id=booking_id, undone_at__isnull=True).exists()


def _tell_staff_once(booking_id: int, step_id: int, error: DomainError) -> None:
    logger.warning("Billing after the ride of booking %s failed: %s", booking_id, error)
    with transaction.atomic():
        booking = selectors.locked_booking(booking_id)
        step = RideStep.objects.get(pk=step_id)
        if booking.history.filter(message=PROVIDER_FAILED, at__gte=step.at).exists():
            return
        history.record(
            booking, history.Kind.PAYMENT, history.said(PROVIDER_FAILED, error=str(error)), actor=ACTOR
        )
        booking_tasks.alert_operator.enqueue(booking_id, f"billing after the ride failed ({error})")
