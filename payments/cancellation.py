"""Cancel and refund: what cancelling a booking costs under the policy (booking/cancellation.py) and the
cancel itself, which keeps the fee and refunds the rest of what was paid."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import selectors, tasks, transitions, trips
from booking.cancellation import (
    CancellationRules,
    CancellationTerms,
    cancellation_rules,
    fee_percent,
    free_until,
)
from booking.models import Booking, BookingStatus, PaymentMethod
from invoicing import collective_invoices
from payments import ledger, refunds, surcharges
from payments import tasks as payment_tasks
from payments.models import CANCELLATION_REFUND
from pricing.money import percent_of


def terms(
    booking: Booking,
    *,
    at: datetime | None = None,
    by_staff: bool = False,
    rules: CancellationRules | None = None,
) -> CancellationTerms:
    """What cancelling the booking at `at` (default now) would cost. Customers and agents can cancel until
    the pickup; staff also after it (e.g. a ride the operator could not serve), at the same terms."""
    at, rules = at or timezone.now(), rules or cancellation_rules()
    deadline = free_until(rules, booking.pickup_at)
    refusal = None
    if not transitions.can_move(booking, BookingStatus.CANCELLED):
        refusal = format_lazy(
            _("A {state} booking cannot be cancelled."), state=BookingStatus(booking.status).label
        )
    elif booking.payment_method == PaymentMethod.ACCOUNT and (
        billed := collective_invoices.billed_refusal(booking)
    ):
        refusal = billed  # the issued collective invoice would still bill the ride
    elif not by_staff and booking.pickup_at is not None and at >= booking.pickup_at:
        refusal = _("The pickup time has passed: the booking can no longer be cancelled online.")
    if refusal or not booking.money_received:
        return CancellationTerms(refusal is None, 0, 0, deadline, refusal)
    percent = fee_percent(rules, pickup=booking.pickup_at, at=at)
    if booking.payment_method == PaymentMethod.ACCOUNT:
        # Nothing was received on account: the fee stays on the booking for the collective invoice.
        fee = percent_of(booking.amount_cents, percent)
        return CancellationTerms(True, fee, 0, deadline, None)
    refundable = refunds.refundable_cents(booking)
    # A share of what was paid for the ride: a price difference still unpaid is not charged as a fee.
    paid_for = min(booking.amount_cents, refundable)
    fee = percent_of(paid_for, percent)
    return CancellationTerms(True, fee, refundable - fee, deadline, None)


def cancel(pk: int, *, actor: str, by_staff: bool = False, requested_by=None) -> Booking:
    """Cancel a booking under the policy: the fee is kept, the rest of what was paid is refunded (through
    the provider when it came that way; a provider failure keeps nothing). Cancelling a cancelled booking
    again changes nothing and answers it as it is, so a retry is safe."""
    with transaction.atomic():
        booking = selectors.locked_booking(pk)
        if booking.status == BookingStatus.CANCELLED:
            return booking
        now = terms(booking, by_staff=by_staff)
        if not now.allowed:
            raise DomainError(now.refusal, code="not_cancellable")
        checkout_open = booking.status == BookingStatus.PENDING_PAYMENT and bool(
            ledger.checkout_session(booking)
        )
        # An unpaid return trip is cancelled as a whole: its rides share one payment page.
        unpaid = booking.status == BookingStatus.PENDING_PAYMENT
        for ride in trips.locked_legs(booking) if unpaid else [booking]:
            if ride.pk == booking.pk:
                _cancel(ride, now, actor, requested_by)
            elif transitions.can_move(ride, BookingStatus.CANCELLED):
                _cancel(ride, terms(ride, by_staff=True), actor, requested_by)
        if checkout_open:
            payment_tasks.close_checkout.enqueue(booking.pk)
    return booking


def _cancel(booking: Booking, now: CancellationTerms, actor: str, requested_by) -> None:
    """Cancel a locked booking at these terms: keep the fee, refund the rest."""
    transitions.apply(booking, BookingStatus.CANCELLED, actor=actor)
    surcharges.waive_open(booking, actor=actor)  # nobody pays a difference for a cancelled ride
    booking.cancellation_fee_cents = now.fee_cents
    booking.save(update_fields=["cancellation_fee_cents", "updated_at"])
    if now.refund_cents:
        refunds.refund(
            booking,
            now.refund_cents,
            reason=CANCELLATION_REFUND,
            actor=actor,
            requested_by=requested_by,
        )
    tasks.send_cancellation.enqueue(booking.pk)
