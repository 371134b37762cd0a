import zoneinfo
from datetime import time

from django.core.exceptions import ValidationError
from django.db import models


def validate_time_zone(value: str) -> None:
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ValidationError(f"{value!r} is not an IANA time zone, e.g. Europe/Vienna.") from exc


class LeadTimePolicy(models.Model):
    """The one lead-time policy (DECISIONS §5); the admin edits it, nobody adds a second."""

    time_zone = models.CharField(max_length=64, default="Europe/Vienna", validators=[validate_time_zone])
    minimum_lead_minutes = models.PositiveIntegerField(
        default=120, help_text="Least time between booking and pickup."
    )
    night_start = models.TimeField(default=time(22, 0), help_text="Bookings placed from this time …")
    night_end = models.TimeField(
        default=time(6, 0), help_text="… until this time are night bookings (equal times: no night rule)."
    )
    night_earliest_pickup = models.TimeField(
        default=time(9, 0),
        help_text="A night booking gets no pickup before this time on the morning the night ends.",
    )
    max_days_ahead = models.PositiveIntegerField(
        default=365, help_text="Latest pickup, in days from booking."
    )

    class Meta:
        verbose_name = verbose_name_plural = "lead-time policy"

    def __str__(self) -> str:
        return "Lead-time policy"
