from django.core.validators import MaxValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

# A day of airport pickups followed as landing nears, and of flights checked at booking.
DEFAULT_DAILY_CALLS = 500


class FlightBudget(models.Model):
    """How many calls the flight-data provider may get per day in Europe/Vienna; one record, edited by staff
    (flights/budget.py)."""

    daily_calls = models.PositiveIntegerField(
        _("flight data calls a day"),
        null=True,
        blank=True,
        default=DEFAULT_DAILY_CALLS,
        validators=[MaxValueValidator(1_000_000)],
        help_text=_(
            "Calls sent to the flight-data provider per day (Europe/Vienna): flights checked at booking and "
            "followed until they land, more often as landing nears. Beyond it, flights are checked again "
            "after midnight and pickups stay where they are. Empty: no limit; 0: never ask."
        ),
    )

    class Meta:
        verbose_name = verbose_name_plural = _("flight data budget")

    def __str__(self) -> str:
        return str(_("Flight data budget"))
