from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

STARS = [MinValueValidator(Decimal("1")), MaxValueValidator(Decimal("5"))]


class RatingSnapshot(models.Model):
    """The public rating shown when Google is not configured (docs/decisions.md §3): one record, edited
    by staff."""

    rating = models.DecimalField(
        _("rating"), max_digits=2, decimal_places=1, null=True, blank=True, validators=STARS
    )
    user_rating_count = models.PositiveIntegerField(_("number of ratings"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = verbose_name_plural = _("rating snapshot")

    def __str__(self) -> str:
        return f"Rating {self.rating or '–'} ({self.user_rating_count or 0})"


class RatingReview(models.Model):
    snapshot = models.ForeignKey(RatingSnapshot, on_delete=models.CASCADE, related_name="reviews")
    author_name = models.CharField(max_length=200)
    rating = models.DecimalField(max_digits=2, decimal_places=1, null=True, blank=True, validators=STARS)
    text = models.TextField()
    relative_time_description = models.CharField(max_length=100, help_text="e.g. “2 weeks ago”")
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "pk"]

    def __str__(self) -> str:
        return f"{self.author_name}: {self.rating}"


DEFAULT_DAILY_CALLS = 2000  # per kind: a busy day's quotes and typing, far below a runaway's
DAILY_CALLS = [MaxValueValidator(1_000_000)]


class ProviderBudget(models.Model):
    """How many billable calls the places provider (Google) may get per day in Europe/Vienna, per kind; one
    record, edited by staff (places/budget.py). Beyond it the offline provider answers until midnight."""

    daily_suggestion_calls = models.PositiveIntegerField(
        _("suggestion calls a day"),
        null=True,
        blank=True,
        default=DEFAULT_DAILY_CALLS,
        validators=DAILY_CALLS,
        help_text=_(
            "Autocomplete requests sent to Google per day (Europe/Vienna); answers from the cache are "
            "free. Beyond it, the built-in suggestions answer until midnight. Empty: no limit; 0: never "
            "ask Google."
        ),
    )
    daily_route_calls = models.PositiveIntegerField(
        _("route calls a day"),
        null=True,
        blank=True,
        default=DEFAULT_DAILY_CALLS,
        validators=DAILY_CALLS,
        help_text=_(
            "Route computations sent to Google per day (Europe/Vienna); answers from the cache are "
            "free. Beyond it, the built-in distance estimate answers until midnight. Empty: no limit; "
            "0: never ask Google."
        ),
    )

    class Meta:
        verbose_name = verbose_name_plural = _("places provider budget")

    def __str__(self) -> str:
        return str(_("Places provider budget"))
