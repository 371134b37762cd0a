"""Endpoints that subscribe to events, the events as sent, and one delivery per endpoint and event with
its attempts' outcome (Standard Webhooks: one id per event, the same id on every retry and replay)."""

import base64
import secrets

from django.db import models
from django.utils.translation import gettext_lazy as _

from webhooks.events import EVENT_TYPES


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def new_event_id() -> str:
    return "msg_" + secrets.token_hex(12)


def new_endpoint_id() -> str:
    return "ep_" + secrets.token_hex(10)


class Endpoint(models.Model):
    public_id = models.CharField(_("id"), max_length=40, unique=True, default=new_endpoint_id, editable=False)
    url = models.URLField(
        _("URL"),
        max_length=2000,
        help_text=_("HTTPS, on a public address; it receives each event as a POST."),
    )
    description = models.CharField(_("description"), max_length=200, blank=True)
    event_types = models.JSONField(_("events"), default=list, blank=True, help_text=_("Empty: every event."))
    secret = models.CharField(
        _("signing secret"),
        max_length=60,
        default=new_secret,
        editable=False,
        help_text=_("The receiver checks each delivery's signature with it."),
    )
    # Whose bookings it hears of, and who manages it through the API (webhooks/owners.py); empty: every
    # booking, and staff.
    owner = models.CharField(_("bookings of"), max_length=300, blank=True, db_index=True, editable=False)
    manager = models.CharField(max_length=40, blank=True, db_index=True, editable=False)
    api_token = models.ForeignKey(
        "access.ApiToken",
        verbose_name=_("API token"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
        help_text=_("The token that added it through the API; empty: staff added it."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    paused_at = models.DateTimeField(_("paused at"), null=True, blank=True, editable=False)
    pause_reason = models.CharField(_("why paused"), max_length=300, blank=True, editable=False)

    class Meta:
        ordering = ["pk"]
        verbose_name, verbose_name_plural = _("webhook endpoint"), _("webhook endpoints")

    def __str__(self) -> str:
        return self.url

    def wants(self, event_type: str) -> bool:
        return not self.event_types or event_type in self.event_types


class Event(models.Model):
    public_id = models.CharField(_("id"), max_length=40, unique=True, default=new_event_id, editable=False)
    type = models.CharField(_("event"), max_length=40, choices=list(EVENT_TYPES.items()))
    # The booking's reference: one booking's deliveries to an endpoint go out in the order of its events.
    subject = models.CharField(_("booking"), max_length=40, db_index=True)
    payload = models.JSONField(_("body"))
    created_at = models.DateTimeField(_("at"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["created_at", "pk"]
        verbose_name, verbose_name_plural = _("webhook event"), _("webhook events")

    def __str__(self) -> str:
        return f"{self.type} {self.subject}"


class Delivery(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", _("pending")
        DELIVERED = "delivered", _("delivered")
        FAILED = "failed", _("failed")

    endpoint = models.ForeignKey(
        Endpoint, verbose_name=_("endpoint"), on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="deliveries"
    )
    state = models.CharField(_("state"), max_length=10, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(_("next attempt"), null=True, blank=True)
    last_attempt_at = models.DateTimeField(_("last attempt"), null=True, blank=True)
    last_status = models.PositiveSmallIntegerField(_("last answer's status"), null=True, blank=True)
    last_answer = models.TextField(_("last answer"), blank=True)
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)
    # Set while a worker sends it (a lease: a worker that vanished mid-send leaves it to the next one).
    sending_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["event_id"]  # one booking's events are made under its lock: their ids keep its order
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event"], name="one_delivery_per_endpoint")
        ]
        indexes = [models.Index(fields=["endpoint", "state"])]
        verbose_name, verbose_name_plural = _("webhook delivery"), _("webhook deliveries")

    def __str__(self) -> str:
        return f"{self.event} → {self.endpoint}"
