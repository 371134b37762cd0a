"""The lead-time policy of docs/decisions.md §5: 120 minutes, the 22:00–06:00 night window with its 09:00 morning,
past and too-far pickups, and both daylight-saving changes of 2026 in Vienna (29 March, 25 October)."""

from datetime import datetime, timedelta

import pytest

from booking.availability import check_availability

pytestmark = pytest.mark.django_db


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def check(booked: str, pickup: str):
    return check_availability(pickup=at(pickup), booked_at=at(booked))


@pytest.mark.parametrize(
    ("booked", "pickup", "available", "reason", "earliest"),
    [
        # Daytime: two hours, to the minute.
        ("2026-11-21T14:30+01:00", "2026-11-21T16:30+01:00", True, None, "2026-11-21T16:30:00+01:00"),
        ("2026-11-21T14:30+01:00", "2026-11-21T16:29+01:00", False, "lead_time", "2026-11-21T16:30:00+01:00"),
        # Just before the night window: the lead time alone counts, even past 22:00.
        ("2026-11-21T21:59+01:00", "2026-11-21T23:59+01:00", True, None, "2026-11-21T23:59:00+01:00"),
        # Night booked before midnight: no pickup before 09:00 the next morning.
        (
            "2026-11-21T22:00+01:00",
            "2026-11-22T08:59+01:00",
            False,
            "night_rule",
            "2026-11-22T09:00:00+01:00",
        ),
        ("2026-11-21T22:00+01:00", "2026-11-22T09:00+01:00", True, None, "2026-11-22T09:00:00+01:00"),
        (
            "2026-11-21T23:45+01:00",
            "2026-11-22T01:45+01:00",
            False,
            "night_rule",
            "2026-11-22T09:00:00+01:00",
        ),
        # Night booked after midnight: 09:00 the same morning.
        (
            "2026-11-22T05:59+01:00",
            "2026-11-22T08:00+01:00",
            False,
            "night_rule",
            "2026-11-22T09:00:00+01:00",
        ),
        ("2026-11-22T05:59+01:00", "2026-11-22T09:00+01:00", True, None, "2026-11-22T09:00:00+01:00"),
        # The window ends at 06:00: from then on the lead time rules again.
        ("2026-11-22T06:00+01:00", "2026-11-22T08:00+01:00", True, None, "2026-11-22T08:00:00+01:00"),
        # After 07:00 the lead time reaches past 09:00 and is the binding rule.
        ("2026-11-22T07:30+01:00", "2026-11-22T09:00+01:00", False, "lead_time", "2026-11-22T09:30:00+01:00"),
        # Past and too far ahead.
        ("2026-11-21T14:30+01:00", "2026-11-21T14:29+01:00", False, "in_past", "2026-11-21T16:30:00+01:00"),
        ("2026-11-21T14:30+01:00", "2027-11-21T14:30+01:00", True, None, "2026-11-21T16:30:00+01:00"),
        (
            "2026-11-21T14:30+01:00",
            "2027-11-21T14:31+01:00",
            False,
            "too_far_ahead",
            "2026-11-21T16:30:00+01:00",
        ),
        # Input in another zone is the same instant, answered in Vienna time.
        ("2026-11-21T13:30Z", "2026-11-21T15:30Z", True, None, "2026-11-21T16:30:00+01:00"),
    ],
)
def test_lead_time_policy(booked, pickup, available, reason, earliest):
    result = check(booked, pickup)
    assert (result.available, result.reason) == (available, reason)
    assert result.earliest_pickup.isoformat(timespec="seconds") == earliest
    assert result.earliest_pickup.tzinfo.key == "Europe/Vienna"


@pytest.mark.parametrize(
    ("booked", "earliest"),
    [
        # Spring forward (02:00 → 03:00): booked in the night, the morning is already summer time.
        ("2026-03-28T23:30+01:00", "2026-03-29T09:00:00+02:00"),
        ("2026-03-29T01:30+01:00", "2026-03-29T09:00:00+02:00"),
        ("2026-03-29T03:30+02:00", "2026-03-29T09:00:00+02:00"),
        # Fall back (03:00 → 02:00): 02:30 happens twice; both are night bookings for 09:00 winter time.
        ("2026-10-25T02:30+02:00", "2026-10-25T09:00:00+01:00"),
        ("2026-10-25T02:30+01:00", "2026-10-25T09:00:00+01:00"),
        ("2026-10-24T23:00+02:00", "2026-10-25T09:00:00+01:00"),
        # The days after keep the rule on local wall-clock time.
        ("2026-03-29T22:30+02:00", "2026-03-30T09:00:00+02:00"),
        ("2026-10-25T22:30+01:00", "2026-10-26T09:00:00+01:00"),
    ],
)
def test_night_rule_across_daylight_saving_changes(booked, earliest):
    result = check(booked, earliest)
    assert result.available
    assert result.earliest_pickup.isoformat(timespec="seconds") == earliest
    assert not check(booked, (at(earliest) - timedelta(minutes=1)).isoformat()).available


@pytest.mark.parametrize(
    ("booked", "earliest"),
    [
        # 8 h of real time, not of wall-clock time: spring forward makes the clock show 9 h later …
        ("2026-03-28T21:00+01:00", "2026-03-29T06:00:00+02:00"),
        # … and fall back makes it show 7 h later.
        ("2026-10-24T21:00+02:00", "2026-10-25T04:00:00+01:00"),
    ],
)
def test_lead_time_counts_real_minutes_across_daylight_saving_changes(booked, earliest):
    from booking.models import LeadTimePolicy

    LeadTimePolicy.objects.filter(pk=1).update(minimum_lead_minutes=8 * 60)
    result = check(booked, earliest)
    assert result.available
    assert result.earliest_pickup.isoformat(timespec="seconds") == earliest
    assert result.earliest_pickup - at(booked) == timedelta(hours=8)


def test_policy_without_night_window(db):
    from datetime import time

    from booking.models import LeadTimePolicy

    LeadTimePolicy.objects.filter(pk=1).update(night_start=time(0), night_end=time(0))
    result = check("2026-11-21T23:00+01:00", "2026-11-22T01:00+01:00")
    assert (result.available, result.reason) == (True, None)


def test_default_booking_time_is_now():
    from django.utils import timezone

    pickup = timezone.now() + timedelta(days=3)
    result = check_availability(pickup=pickup)
    assert abs(result.booked_at - timezone.now()) < timedelta(seconds=5)
    assert result.available
