"""The money around a booking: refunds, price differences owed after a change, the provider events already
applied, and the first answers of checkouts sent with an idempotency key. They moved here from `booking`
(issue 26); their tables were renamed from booking_* by booking's migration 0013, and their rows kept."""

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from pricing.money import CURRENCY, from_cents


class RefundStatus(models.TextChoices):
    # Stripe's refund states (the Refund object's `status`).
    PENDING = "pending", _("pending")
    REQUIRES_ACTION = "requires_action", _("requires action")
    SUCCEEDED = "succeeded", _("succeeded")
    FAILED = "failed", _("failed")
    CANCELED = "canceled", _("canceled")


class Refund(models.Model):
    """Money given back for a booking: through the payment provider (its state follows the provider's
    refund events) or by staff outside it (cash, bank transfer), recorded as done."""

    class Method(models.TextChoices):
        PROVIDER = "provider", _("payment provider")
        MANUAL = "manual", _("by staff, outside the provider")

    booking = models.ForeignKey("booking.Booking", on_delete=models.PROTECT, related_name="refunds")
    amount_cents = models.PositiveIntegerField()
    currency = models.CharField(max_length=3, default=CURRENCY)
    status = models.CharField(max_length=20, choices=RefundStatus.choices)
    method = models.CharField(max_length=10, choices=Method.choices, default=Method.PROVIDER)
    provider_refund_id = models.CharField(max_length=255, null=True, blank=True, unique=True)
    payment_intent_id = models.CharField(
        max_length=255,
        blank=True,
        help_text=_("The provider payment it went back to (blank: the booking's own)."),
    )
    reason = models.CharField(max_length=200, blank=True)
    failure_reason = models.CharField(max_length=100, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The one-time key of the staff form that asked for it: the same form sent twice refunds once.
    request_key = models.CharField(max_length=64, null=True, blank=True, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]
        verbose_name, verbose_name_plural = _("refund"), _("refunds")

    def __str__(self) -> str:
        return f"{self.booking} refund {self.amount_cents} ({self.status})"

    @property
    def amount(self) -> Decimal:
        return from_cents(self.amount_cents)


class Surcharge(models.Model):
    """Money the customer owes beyond the price: a price difference after staff changed the ride, or, after
    the ride, waiting beyond what was included or a no-show fee (issue 21). Paid through a payment link
    the customer gets by e-mail, or collected by staff and confirmed by them; a pending one without a
    link is owed (an invoice or cash booking) for staff to collect or waive. A link a later change or a
    cancellation made void is waived (its page closed); money that still arrives through it goes back."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for payment")
        PAID = "paid", _("paid")
        WAIVED = "waived", _("waived")

    class Reason(models.TextChoices):
        CHANGE = "change", _("price difference")
        WAITING = "waiting", _("waiting time")
        NO_SHOW = "no_show", _("no-show fee")

    booking = models.ForeignKey("booking.Booking", on_delete=models.PROTECT, related_name="surcharges")
    amount_cents = models.PositiveIntegerField()
    currency = models.CharField(max_length=3, default=CURRENCY)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    reason = models.CharField(max_length=10, choices=Reason.choices, default=Reason.CHANGE)
    method = models.CharField(max_length=10, choices=Refund.Method.choices, default=Refund.Method.PROVIDER)
    provider_session_id = models.CharField(max_length=255, null=True, blank=True, unique=True)
    payment_intent_id = models.CharField(max_length=255, blank=True, help_text=_("The provider payment."))
    payment_url = models.URLField(max_length=1000, blank=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        verbose_name, verbose_name_plural = _("price difference"), _("price differences")

    def __str__(self) -> str:
        return f"{self.booking} surcharge {self.amount_cents} ({self.status})"

    @property
    def amount(self) -> Decimal:
        return from_cents(self.amount_cents)


class ProcessedPaymentEvent(models.Model):
    """Each provider event id once: a replayed webhook changes nothing."""

    event_id = models.CharField(max_length=255, unique=True)
    event_type = models.CharField(max_length=100)
    booking = models.ForeignKey(
        "booking.Booking", null=True, on_delete=models.SET_NULL, related_name="payment_events"
    )
    received_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id}"


class IdempotentCheckout(models.Model):
    """The first successful answer to a checkout sent with an idempotency key (payments.idempotency).
    `status_code` is empty while that first request is still running. Kept per door: each door answers in
    its own shape, so a key used on one never replays another's answer."""

    class Door(models.TextChoices):
        LEGACY = "legacy", "POST /api/create-checkout-session"
        V1 = "v1", "POST /api/v1/checkout"
        PAGE = "page", "POST /api/page/checkout"
        MCP = "mcp", "booking.create_checkout (MCP)"

    door = models.CharField(max_length=10, choices=Door.choices)
    caller = models.CharField(max_length=100, help_text="Whose key: a token or a client address.")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the request's JSON body.")
    status_code = models.PositiveSmallIntegerField(null=True)
    response = models.JSONField(null=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["door", "caller", "key"], name="one_answer_per_door_caller_key")
        ]

    def __str__(self) -> str:
        return f"{self.door} {self.caller} {self.key}"
