"""A request for a quote: a trip the tariff cannot price (more passengers than the largest class seats,
several cars or days, outside the tariff's area), asked for by a traveller on the booking page or by a
program or an agent, for staff to answer."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from booking.models import BookingChannel

MAX_DETAILS = 2000  # characters of what the traveller says they need


class QuoteRequestStatus(models.TextChoices):
    OPEN = "open", _("open")
    ANSWERED = "answered", _("answered")  # staff sent an offer or a reply
    CLOSED = "closed", _("closed")  # nothing to offer, or no longer needed


class QuoteRequest(models.Model):
    reference = models.CharField(_("reference"), max_length=12, unique=True)
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=QuoteRequestStatus.choices,
        default=QuoteRequestStatus.OPEN,
        db_index=True,
    )
    # The trip, as the traveller describes it.
    origin = models.CharField(_("from"), max_length=500)
    destination = models.CharField(_("to"), max_length=500, blank=True)
    pickup_at = models.DateTimeField(_("pickup"))
    passengers = models.PositiveSmallIntegerField(_("passengers"), null=True, blank=True)
    luggage = models.PositiveSmallIntegerField(_("pieces of luggage"), null=True, blank=True)
    vehicle_class = models.CharField(_("class wished for"), max_length=20, blank=True)
    details = models.TextField(_("what is needed"), max_length=MAX_DETAILS, blank=True)
    # Why the tariff could not price it, as the quote answered (e.g. vehicle_too_small); empty: not said.
    reason = models.CharField(_("why no price"), max_length=40, blank=True)
    # Who asks.
    name = models.CharField(_("name"), max_length=200)
    email = models.EmailField(_("e-mail"))
    phone = models.CharField(_("phone"), max_length=50, blank=True)
    locale = models.CharField(_("language"), max_length=2, default="en")
    channel = models.CharField(_("channel"), max_length=10, choices=BookingChannel.choices)
    api_token = models.ForeignKey(
        "access.ApiToken",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="quote_requests",
        verbose_name=_("API token"),
    )
    staff_note = models.TextField(_("staff note"), blank=True, help_text=_("For staff only."))
    created_at = models.DateTimeField(_("asked at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("changed at"), auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name, verbose_name_plural = _("quote request"), _("quote requests")

    def __str__(self) -> str:
        return self.reference
