"""The lead-time rule (docs/decisions.md §5) as a pure function, with its default figures (the policy
staff edit in the admin starts from them) and the one text that describes a policy to callers.
Durations are real elapsed time (UTC arithmetic); the night window and the morning pickup are wall-clock
times in the operator's zone."""

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


DEFAULT_MINIMUM_LEAD_MINUTES = 120
DEFAULT_NIGHT_START, DEFAULT_NIGHT_END = time(22, 0), time(6, 0)
DEFAULT_NIGHT_EARLIEST_PICKUP = time(9, 0)
DEFAULT_MAX_DAYS_AHEAD = 365


def describe(rules: LeadTimeRules) -> str:
    """The policy in words, for API descriptions and tool descriptions."""
    lead = int(rules.minimum_lead.total_seconds() // 60)
    lead_text = f"{lead // 60} hours" if lead % 60 == 0 else f"{lead} minutes"
    night = (
        ""
        if rules.night_start == rules.night_end
        else f"a booking placed between {rules.night_start:%H:%M} and {rules.night_end:%H:%M} gets no pickup "
        f"before {rules.night_earliest_pickup:%H:%M} that morning; "
    )
    return (
        f"At least {lead_text} between booking and pickup; {night}no pickup in the past or more than "
        f"{rules.max_ahead.days} days ahead."
    )


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
