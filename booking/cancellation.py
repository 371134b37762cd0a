"""The cancellation policy (one record staff edit in the admin), applied alike to staff, customers and
agents: free until N hours before the pickup, then a fee of a share of the price; from the pickup on the
whole price is kept. Hours are real elapsed time (UTC arithmetic), like the lead time's minutes, so the
deadline is exact across a daylight-saving change; every answer states it as a Vienna date-time."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from django.utils.functional import Promise, lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import selectors, tasks, transitions
from booking.models import Booking, BookingStatus, CancellationPolicy, PaymentMethod
from payments import collective_invoices, credit_notes, refunds, surcharges
from payments import tasks as payment_tasks
from pricing.money import HUNDRED, percent_of


@dataclass(frozen=True)
class CancellationRules:
    free_before: timedelta
    late_fee_percent: Decimal
    no_show_fee_percent: Decimal = HUNDRED


def cancellation_rules() -> CancellationRules:
    policy = CancellationPolicy.objects.filter(pk=1).first() or CancellationPolicy()
    return CancellationRules(
        free_before=timedelta(hours=policy.free_until_hours),
        late_fee_percent=policy.late_fee_percent,
        no_show_fee_percent=policy.no_show_fee_percent,
    )


def describe(rules: CancellationRules) -> str:
    """The policy in words, for tool descriptions and pages."""
    hours = int(rules.free_before.total_seconds() // 3600)
    return (
        f"free until {hours} hours before the pickup, then {rules.late_fee_percent.normalize():f} % of the "
        "price until the pickup; from the pickup on nothing is refunded"
    )


# Read when a tool is listed, so agents see what staff set in the admin now.
current_policy_text = lazy(lambda: describe(cancellation_rules()), str)


def free_until(rules: CancellationRules, pickup: datetime | None) -> datetime | None:
    """The last moment a cancellation is free, in Vienna time; None for a ride without a pickup time."""
    if pickup is None:
        return None
    return (pickup.astimezone(UTC) - rules.free_before).astimezone(timezone.get_default_timezone())


def fee_percent(rules: CancellationRules, *, pickup: datetime | None, at: datetime) -> Decimal:
    """The share of the price kept when cancelling at `at`. A ride without a pickup time is always free."""
    deadline = free_until(rules, pickup)  # None exactly when pickup is
    if pickup is None or deadline is None or at < deadline:
        return Decimal("0")
    return rules.late_fee_percent if at < pickup else HUNDRED


@dataclass(frozen=True)
class NoShowFee:
    percent: Decimal
    price_cents: int
    fee_cents: int


def no_show_fee(booking: Booking, rules: CancellationRules | None = None) -> NoShowFee:
    """What a no-show costs (the chauffeur waited what the policy requires, the passenger did not come): the
    policy's share of the ride's price, to the cent, half up."""
    percent = (rules or cancellation_rules()).no_show_fee_percent
    fee = percent_of(booking.amount_cents, percent)
    return NoShowFee(percent, booking.amount_cents, fee)


@dataclass(frozen=True)
class CancellationTerms:
    allowed: bool
    fee_cents: int  # kept of what was paid
    refund_cents: int  # given back
    free_until: datetime | None
    refusal: str | Promise | None  # why cancelling is not possible, when it is not


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
        checkout_open = booking.status == BookingStatus.PENDING_PAYMENT and bool(booking.provider_session_id)
        transitions.apply(booking, BookingStatus.CANCELLED, actor=actor)
        surcharges.waive_open(booking, actor=actor)  # nobody pays a difference for a cancelled ride
        booking.cancellation_fee_cents = now.fee_cents
        booking.save(update_fields=["cancellation_fee_cents", "updated_at"])
        if now.refund_cents:
            refunds.refund(
                booking,
                now.refund_cents,
                reason=credit_notes.CANCELLATION_REFUND,
                actor=actor,
                requested_by=requested_by,
            )
        tasks.send_cancellation.enqueue(booking.pk)
        if checkout_open:
            payment_tasks.close_checkout.enqueue(booking.pk)
    return booking
