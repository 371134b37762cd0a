"""The monthly revenue (accounting/revenue.py): money counts in the Vienna calendar month it moved — a booking's
payment, a price difference paid later, a refund when it succeeded — by vehicle class and channel, with net
and VAT split per booking and month from the booking's own VAT rate."""

from datetime import UTC, date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
import time_machine

from accounting.revenue import Figures, monthly_revenue, split
from payments import refunds
from payments.models import Refund, RefundStatus, Surcharge
from pricing.services import current_snapshot
from tests.payments import ledger_rows
from tests.payments.conftest import refund_booking

pytestmark = pytest.mark.django_db
VIENNA = ZoneInfo("Europe/Vienna")
JAN, FEB, MAR, APR = (date(2026, month, 1) for month in (1, 2, 3, 4))


def vienna(*args) -> datetime:
    return datetime(*args, tzinfo=VIENNA)


def paid(make_booking, at: datetime, **fields):
    return make_booking(**{"status": "paid", "paid_at": at, "payment_intent_id": "sbx_pi", **fields})


def figures(cell: Figures) -> tuple:
    return cell.rides, cell.received, cell.refunded, cell.gross, cell.net, cell.vat


@pytest.fixture
def seeded(make_booking):
    """January's last half hour and February's first minutes in Vienna (both the same UTC day), a difference
    paid in February, a refund that succeeded in March; and money that did not move."""
    late_january = paid(
        make_booking, vienna(2026, 1, 31, 23, 30), vehicle_class="executive", channel="website"
    )
    assert late_january.paid_at.astimezone(UTC).day == 31
    early_february = paid(make_booking, vienna(2026, 2, 1, 0, 10), vehicle_class="first", channel="phone")
    assert early_february.paid_at.astimezone(UTC) == datetime(2026, 1, 31, 23, 10, tzinfo=UTC)
    difference = Surcharge.objects.create(booking=late_january, amount_cents=1000, status="paid")
    ledger_rows.received(late_january, 1000, kind="link", surcharge=difference, at=vienna(2026, 2, 15, 12))
    Surcharge.objects.create(booking=late_january, amount_cents=500)  # owed, not paid
    Surcharge.objects.create(booking=late_january, amount_cents=700, status="waived")
    for status in (RefundStatus.PENDING, RefundStatus.FAILED):  # no money went back
        Refund.objects.create(booking=late_january, amount_cents=300, status=status)
    with time_machine.travel(vienna(2026, 3, 2, 9), tick=False):
        Refund.objects.create(
            booking=early_february, amount_cents=2000, status="succeeded", method=Refund.Method.MANUAL
        )
    paid(make_booking, vienna(2025, 12, 31, 23, 59), channel="agent")  # before the period
    paid(make_booking, vienna(2026, 5, 1, 0, 0), channel="agent")  # after it
    make_booking()  # never paid
    return late_january, early_february


def test_money_counts_in_the_vienna_month_it_moved(seeded):
    late_january, early_february = seeded
    price_a, price_b = Decimal(late_january.amount_cents) / 100, Decimal(early_february.amount_cents) / 100
    revenue = monthly_revenue(first=JAN, last=APR)

    assert revenue.months == [JAN, FEB, MAR, APR]
    net_a = Decimal(late_january.quote_record["net"])  # a booking paid once in full: its quote's net
    assert figures(revenue.by_class[JAN, "executive"]) == (1, price_a, 0, price_a, net_a, price_a - net_a)
    assert figures(revenue.by_channel[JAN, "website"]) == figures(revenue.by_class[JAN, "executive"])
    assert figures(revenue.by_class[FEB, "executive"]) == (
        0,
        Decimal("10.00"),
        0,
        Decimal("10.00"),
        Decimal("9.09"),
        Decimal("0.91"),
    )
    net_b = Decimal(early_february.quote_record["net"])
    assert figures(revenue.by_channel[FEB, "phone"]) == (1, price_b, 0, price_b, net_b, price_b - net_b)
    assert figures(revenue.by_class[MAR, "first"]) == (
        0,
        0,
        Decimal("20.00"),
        Decimal("-20.00"),
        Decimal("-18.18"),
        Decimal("-1.82"),
    )
    assert figures(revenue.by_month[APR]) == (0, 0, 0, 0, 0, 0)  # an empty month is there, as zero
    assert figures(revenue.total) == (
        2,
        price_a + 10 + price_b,
        Decimal("20.00"),
        price_a + price_b - 10,
        net_a + Decimal("9.09") + net_b - Decimal("18.18"),
        price_a + price_b - 10 - (net_a + Decimal("9.09") + net_b - Decimal("18.18")),
    )
    assert revenue.total.gross == sum(revenue.by_month[m].gross for m in revenue.months)
    assert revenue.total.net == sum(revenue.class_totals[c].net for c in revenue.classes)
    assert revenue.total.vat == sum(revenue.channel_totals[c].vat for c in revenue.channels)
    assert revenue.classes[: len(current_snapshot().tariffs)] == list(current_snapshot().tariffs)
    assert revenue.channels == ["website", "phone", "agent", "api"]
    assert revenue.channel_totals["agent"].rides == 0  # December's and May's bookings are outside


def test_a_refund_counts_when_it_succeeded_not_when_it_was_asked(make_booking):
    booking = paid(make_booking, vienna(2026, 1, 10, 12), payment_method="invoice", payment_intent_id="")
    with time_machine.travel(vienna(2026, 1, 31, 23, 45), tick=False):
        [owed] = refund_booking(booking.pk, 1100, reason="goodwill", actor="staff (eva)")
    assert owed.status == RefundStatus.PENDING  # owed by staff: nothing went back yet
    assert monthly_revenue(first=JAN, last=FEB).by_month[JAN].refunded == 0
    with time_machine.travel(vienna(2026, 2, 1, 0, 15), tick=False):
        refunds.confirm_paid_back(owed.pk, actor="staff (eva)")
    revenue = monthly_revenue(first=JAN, last=FEB)
    assert (revenue.by_month[JAN].refunded, revenue.by_month[FEB].refunded) == (0, Decimal("11.00"))
    assert revenue.by_class[FEB, booking.vehicle_class].net == Decimal("-10.00")


def test_net_and_vat_are_split_per_booking_and_month_half_up():
    assert split(Decimal("74.00"), Decimal("0.10")) == (Decimal("67.27"), Decimal("6.73"))
    assert split(Decimal("0.15"), Decimal("0.20")) == (Decimal("0.13"), Decimal("0.02"))  # 0.125: up
    assert split(Decimal("-0.15"), Decimal("0.20")) == (Decimal("-0.13"), Decimal("-0.02"))  # away from 0
    assert split(Decimal("0.00"), Decimal("0.10")) == (Decimal("0.00"), Decimal("0.00"))


def test_each_booking_is_split_at_its_own_rate_and_rounded_on_its_own(make_booking):
    for _ in range(2):  # 0.05 / 1.1 = 0.045…: 0.05 each; the sum 0.10 / 1.1 would round to 0.09
        paid(make_booking, vienna(2026, 1, 5, 9), amount_cents=5, received_cents=5, channel="api")
    twenty = paid(make_booking, vienna(2026, 1, 6, 9), amount_cents=15, received_cents=15, channel="agent")
    twenty.quote_record = {**twenty.quote_record, "vat_rate": "0.20"}
    twenty.save()
    revenue = monthly_revenue(first=JAN, last=JAN)
    assert (revenue.by_channel[JAN, "api"].net, revenue.by_channel[JAN, "api"].vat) == (
        Decimal("0.10"),
        Decimal("0.00"),
    )
    assert (revenue.by_channel[JAN, "agent"].net, revenue.by_channel[JAN, "agent"].vat) == (
        Decimal("0.13"),
        Decimal("0.02"),
    )


def test_the_database_sums_in_three_queries_however_many_bookings(make_booking, django_assert_num_queries):
    def add(count: int) -> None:
        for day in range(1, count + 1):
            booking = paid(make_booking, vienna(2026, 1, day, 10), channel="phone")
            difference = Surcharge.objects.create(booking=booking, amount_cents=100, status="paid")
            ledger_rows.received(booking, 100, kind="link", surcharge=difference, at=vienna(2026, 2, day, 10))
            Refund.objects.create(booking=booking, amount_cents=50, status="succeeded")

    current_snapshot()  # the tariffs' names, cached for every request after the first
    add(2)
    with django_assert_num_queries(3):
        small = monthly_revenue(first=JAN, last=date(2026, 12, 1))
    add(20)
    with django_assert_num_queries(3):
        large = monthly_revenue(first=JAN, last=date(2026, 12, 1))
    assert (small.by_month[JAN].rides, large.by_month[JAN].rides) == (2, 22)
    assert large.by_month[FEB].received == Decimal("22.00")


def test_a_period_must_run_forward():
    with pytest.raises(ValueError):
        monthly_revenue(first=FEB, last=JAN)
