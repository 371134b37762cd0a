"""The cancellation policy (one record staff edit in the admin), applied alike to staff, customers and
agents: free until N hours before the pickup, then a fee of a share of the price; from the pickup on the
whole price is kept. Hours are real elapsed time (UTC arithmetic), like the lead time's minutes, so the
deadline is exact across a daylight-saving change; every answer states it as a Vienna date-time. What
cancelling a booking costs and the cancel itself, which refunds, are payments' (payments/cancellation.py)."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from django.utils import timezone
from django.utils.functional import Promise, lazy

from booking.models import Booking, CancellationPolicy
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
