"""The money the operator took, per Vienna calendar month, vehicle class and channel (the admin's revenue
page). Counted when the money moved, not when the ride was:

- a booking's own payment in the month of `Booking.paid_at` (what the ledger received for its own price);
- a price difference (Surcharge) in the month its payment was received (money that arrived through a
  withdrawn link included: it was received, and its refund counts below);
- a refund that succeeded (Refund.status "succeeded") subtracted in the month it succeeded: its
  `updated_at`, which its last change of state set (a refund only moves forward, payments/refunds.py STAGE;
  no later save touches a succeeded one).

Prices are gross (VAT included). Net and VAT are split per booking and month: the booking's money of that
month (received less refunded) divided by 1 + the VAT rate of its quote (`quote_record["vat_rate"]`),
rounded half up to the cent (away from zero for a month that gave back more than it took), the rest is
VAT. A booking paid once in full thus gets exactly its quote's net. The database sums the movements per
booking and month in three queries whatever the period; only the split and the totals are Python's."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import IntegerField, Subquery, Sum, Value
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Coalesce, TruncMonth
from django.utils import timezone

from booking.models import Booking, BookingChannel
from payments import ledger
from payments.models import Payment, Refund, RefundStatus, Surcharge
from pricing.money import CENT, from_cents
from pricing.services import current_snapshot

# The channels in the order the page shows them.
CHANNELS = (BookingChannel.WEBSITE, BookingChannel.PHONE, BookingChannel.AGENT, BookingChannel.API)
MOST_MONTHS = 60  # five years on one page


@dataclass
class Figures:
    """One cell: bookings paid, money received and refunded, and what stays (gross) split into net and VAT."""

    rides: int = 0
    received: Decimal = Decimal("0.00")
    refunded: Decimal = Decimal("0.00")
    net: Decimal = Decimal("0.00")
    vat: Decimal = Decimal("0.00")

    @property
    def gross(self) -> Decimal:
        return self.received - self.refunded

    @property
    def moved(self) -> bool:
        """Whether any money moved (or a booking was paid): a cell worth a line of its own."""
        return bool(self.rides or self.received or self.refunded)

    def add(self, other: "Figures") -> None:
        self.rides += other.rides
        self.received += other.received
        self.refunded += other.refunded
        self.net += other.net
        self.vat += other.vat


@dataclass
class Revenue:
    months: list[date]  # the first day of each month, oldest first, every month of the period
    classes: list[str]  # vehicle class codes: the tariffs' order, then any retired class that has money
    channels: list[str] = field(default_factory=lambda: [str(channel) for channel in CHANNELS])
    by_class: dict[tuple[date, str], Figures] = field(default_factory=lambda: defaultdict(Figures))
    by_channel: dict[tuple[date, str], Figures] = field(default_factory=lambda: defaultdict(Figures))
    by_month: dict[date, Figures] = field(default_factory=lambda: defaultdict(Figures))
    class_totals: dict[str, Figures] = field(default_factory=lambda: defaultdict(Figures))
    channel_totals: dict[str, Figures] = field(default_factory=lambda: defaultdict(Figures))
    total: Figures = field(default_factory=Figures)


def months_between(first: date, last: date) -> list[date]:
    """The first days of the months from `first`'s to `last`'s, both included."""
    months, month = [], first.replace(day=1)
    while month <= last:
        months.append(month)
        month = next_month(month)
    return months


def next_month(month: date) -> date:
    return date(month.year + month.month // 12, month.month % 12 + 1, 1)


def split(gross: Decimal, rate: Decimal) -> tuple[Decimal, Decimal]:
    """(net, VAT) of a gross amount: net rounded half up (away from zero) to the cent, VAT the rest."""
    net = (gross / (1 + rate)).quantize(CENT, ROUND_HALF_UP)
    return net, gross - net


def monthly_revenue(*, first: date, last: date) -> Revenue:
    """The money of the months from `first`'s to `last`'s (Vienna calendar months, both included)."""
    months = months_between(first, last)
    if not months:
        raise ValueError("the first month is after the last")
    zone = timezone.get_default_timezone()  # Europe/Vienna
    start = datetime.combine(months[0], time.min, tzinfo=zone)
    end = datetime.combine(next_month(months[-1]), time.min, tzinfo=zone)

    # (booking, month) → [class, channel, VAT rate, rides, received cents, refunded cents]
    moved: dict[tuple[int, date], list] = {}

    def note(booking_id, moment, vehicle_class, channel, rate, *, rides=0, received=0, refunded=0):
        month = timezone.localtime(moment, zone).date().replace(day=1)
        row = moved.setdefault((booking_id, month), [vehicle_class, channel, rate, 0, 0, 0])
        row[3] += rides
        row[4] += received
        row[5] += refunded

    payments = (
        Booking.objects.filter(paid_at__gte=start, paid_at__lt=end)
        .annotate(
            month=TruncMonth("paid_at", tzinfo=zone),
            rate=KeyTextTransform("vat_rate", "quote_record"),
            own=Coalesce(Subquery(ledger.own_received(), output_field=IntegerField()), Value(0)),
        )
        .values_list("pk", "month", "vehicle_class", "channel", "rate", "own")
    )
    for pk, month, vehicle_class, channel, rate, own in payments:
        note(pk, month, vehicle_class, channel, rate, rides=1, received=own)

    for model, moment, filters, kind in (
        (Surcharge, "payment__received_at", {"payment__state": Payment.State.RECEIVED}, "received"),
        (Refund, "updated_at", {"status": RefundStatus.SUCCEEDED}, "refunded"),
    ):
        sums = (
            model.objects.filter(**filters, **{f"{moment}__gte": start, f"{moment}__lt": end})
            .annotate(month=TruncMonth(moment, tzinfo=zone))
            .values("booking_id", "month", "booking__vehicle_class", "booking__channel")
            .annotate(rate=KeyTextTransform("vat_rate", "booking__quote_record"), cents=Sum("amount_cents"))
            .values_list("booking_id", "month", "booking__vehicle_class", "booking__channel", "rate", "cents")
        )
        for booking_id, month, vehicle_class, channel, rate, cents in sums:
            note(booking_id, month, vehicle_class, channel, rate, **{kind: cents})

    known = list(current_snapshot().tariffs)
    seen = {row[0] for row in moved.values()}
    revenue = Revenue(months=months, classes=known + sorted(seen - set(known)))
    for (_booking, month), (vehicle_class, channel, rate, rides, received, refunded) in moved.items():
        net, vat = split(from_cents(received - refunded), Decimal(str(rate)))
        cell = Figures(rides, from_cents(received), from_cents(refunded), net, vat)
        for bucket in (
            revenue.by_class[month, vehicle_class],
            revenue.by_channel[month, channel],
            revenue.by_month[month],
            revenue.class_totals[vehicle_class],
            revenue.channel_totals[channel],
            revenue.total,
        ):
            bucket.add(cell)
    return revenue
