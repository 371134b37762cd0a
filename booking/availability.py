from datetime import datetime, timedelta

from django.utils import timezone

from booking.availability import Availability, LeadTimeRules, evaluate
from booking.models import LeadTimePolicy


def lead_time_rules() -> LeadTimeRules:
    policy = LeadTimePolicy.objects.filter(pk=1).first() or LeadTimePolicy()
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
