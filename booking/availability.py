"""Availability of a pickup: the lead-time rule applied with the policy staff keep in the admin, which each
process keeps while the shared policy version holds (apikit/versions.py)."""

from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.functional import lazy

from apikit.versions import KeptCopy, SharedVersion
from booking.lead_time import Availability, LeadTimeRules, describe, evaluate
from booking.models import LeadTimePolicy

POLICY = SharedVersion("lead-time-policy")


def _read_rules() -> LeadTimeRules:
    return rules_of(LeadTimePolicy.objects.filter(pk=1).first() or LeadTimePolicy())


_rules = KeptCopy(POLICY, _read_rules)


def lead_time_rules() -> LeadTimeRules:
    return _rules.get()


def rules_of(policy: LeadTimePolicy) -> LeadTimeRules:
    return LeadTimeRules(
        zone=timezone.get_default_timezone(),
        minimum_lead=timedelta(minutes=policy.minimum_lead_minutes),
        night_start=policy.night_start,
        night_end=policy.night_end,
        night_earliest_pickup=policy.night_earliest_pickup,
        max_ahead=timedelta(days=policy.max_days_ahead),
    )


def check_availability(*, pickup: datetime, booked_at: datetime | None = None) -> Availability:
    """Whether a pickup respects the lead-time policy, for a booking placed at `booked_at` (default now)."""
    return evaluate(lead_time_rules(), pickup=pickup, booked_at=booked_at or timezone.now())


def _current_policy_text() -> str:
    return describe(lead_time_rules())


def _default_policy_text() -> str:
    return describe(rules_of(LeadTimePolicy())) + " These are the defaults; the operator may change them."


# Read when a tool is listed, so agents see what staff set in the admin now.
current_policy_text = lazy(_current_policy_text, str)
# For documents built without a database at hand (OpenAPI, which `manage.py check` generates too).
default_policy_text = lazy(_default_policy_text, str)
