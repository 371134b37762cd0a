"""The lead-time rule (DECISIONS §5) as a pure function. Durations are real elapsed time (UTC
arithmetic); the night window and the morning pickup are wall-clock times in the policy's zone."""

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo


class Reason(StrEnum):
    LEAD_TIME = "lead_time"
    NIGHT_RULE = "night_rule"
    IN_PAST = "in_past"
    TOO_FAR_AHEAD = "too_far_ahead"


@dataclass(frozen=True)
class LeadTimeRules:
    zone: ZoneInfo
    minimum_lead: timedelta
    night_start: time
    night_end: time
    night_earliest_pickup: time
    max_ahead: timedelta


@dataclass(frozen=True)
class Availability:
    available: bool
    pickup: datetime
    booked_at: datetime
    earliest_pickup: datetime
    reason: Reason | None


def evaluate(rules: LeadTimeRules, *, pickup: datetime, booked_at: datetime) -> Availability:
    pickup, booked_at = pickup.astimezone(rules.zone), booked_at.astimezone(rules.zone)
    earliest = _after(booked_at, rules.minimum_lead, rules.zone)
    reason = Reason.LEAD_TIME
    morning = _night_morning(rules, booked_at)
    if morning is not None and morning > earliest:
        earliest, reason = morning, Reason.NIGHT_RULE

    if pickup < booked_at:
        verdict = Reason.IN_PAST
    elif pickup > _after(booked_at, rules.max_ahead, rules.zone):
        verdict = Reason.TOO_FAR_AHEAD
    elif pickup < earliest:
        verdict = reason
    else:
        verdict = None
    return Availability(verdict is None, pickup, booked_at, earliest, verdict)


def _after(moment: datetime, duration: timedelta, zone: ZoneInfo) -> datetime:
    # Aware arithmetic in a local zone is wall-clock arithmetic; across a DST change that is off by an hour.
    return (moment.astimezone(UTC) + duration).astimezone(zone)


def _night_morning(rules: LeadTimeRules, booked_at: datetime) -> datetime | None:
    """The earliest pickup for a booking placed inside the night window, or None outside it."""
    start, end, clock = rules.night_start, rules.night_end, booked_at.timetz().replace(tzinfo=None)
    if start == end:
        return None
    wraps_midnight = start > end
    in_window = (clock >= start or clock < end) if wraps_midnight else (start <= clock < end)
    if not in_window:
        return None
    night_ends_on = (
        booked_at.date() + timedelta(days=1) if wraps_midnight and clock >= start else booked_at.date()
    )
    return _wall_clock(night_ends_on, rules.night_earliest_pickup, rules.zone)


def _wall_clock(day: date, clock: time, zone: ZoneInfo) -> datetime:
    # Round-tripping through UTC moves a time inside a DST gap to the first real instant after it.
    return datetime.combine(day, clock, tzinfo=zone).astimezone(UTC).astimezone(zone)
