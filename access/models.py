from django.db import models


class Scope(models.TextChoices):
    READ = "booking.read", "booking.read: distance, price, places, availability"
    WRITE = "booking.write", "booking.write: checkout"


class ApiToken(models.Model):
    """A bearer token for agents and partners (docs/decisions.md §6). Only a SHA-256 digest is stored;
    the plain token is shown once, when it is issued."""

    name = models.CharField(
        max_length=100, help_text="Who or what uses it, e.g. “Concierge agent of Hotel X”."
    )
    prefix = models.CharField(
        max_length=16, db_index=True, editable=False, help_text="To recognise it; not secret."
    )
    digest = models.CharField(max_length=64, unique=True, editable=False)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Empty: does not expire.")
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    rate_limit = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Requests per rate-limit window for this token; empty: the service's default.",
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
