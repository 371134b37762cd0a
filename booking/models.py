from datetime import time

from django.core.validators import MaxValueValidator
from django.db import models


class LeadTimePolicy(models.Model):
    """The one lead-time policy (DECISIONS §5); the admin edits it, nobody adds a second. Its clock times
    are in the operator's time zone (TIME_ZONE, Europe/Vienna), the same zone API date-times are read in."""

    minimum_lead_minutes = models.PositiveIntegerField(
        default=120,
        validators=[MaxValueValidator(7 * 24 * 60)],
        help_text="Least time between booking and pickup.",
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
        default=365, validators=[MaxValueValidator(3650)], help_text="Latest pickup, in days from booking."
    )

    class Meta:
        verbose_name = verbose_name_plural = "lead-time policy"

    def __str__(self) -> str:
        return "Lead-time policy"
