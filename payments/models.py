"""The money around a booking: refunds, price differences owed after a change, the provider events already
applied, and the first answers of checkouts sent with an idempotency key. Their tables began in `booking`'s
migrations and are handed over, rows kept, by booking's 0013 and payments' 0001."""

from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from pricing.money import CURRENCY, from_cents

if TYPE_CHECKING:
    from booking.models import Booking

VIENNA = ZoneInfo("Europe/Vienna")


class RefundStatus(models.TextChoices):
    # Stripe's refund states (the Refund object's `status`).
    PENDING = "pending", _("pending")
    REQUIRES_ACTION = "requires_action", _("requires action")
    SUCCEEDED = "succeeded", _("succeeded")
    FAILED = "failed", _("failed")
    CANCELED = "canceled", _("canceled")


# The reason dispatch/changes.py gives the refund of a lower price after a staff change.
PRICE_CHANGE_REFUND = "Price difference after a change."
# The reason booking/cancellation.py gives its refund: the cancellation e-mail carries its credit note.
CANCELLATION_REFUND = "Cancellation under the policy."


class Payment(models.Model):
    """Money in: one movement with its own state (the ledger, payments/ledger.py). The booking's own
    checkout, a price difference's link, money staff took (cash, card terminal, transfer, invoice), a
    company's transfer against its collective invoice (AccountPayment). It carries one or more bookings,
    each with its share (PaymentShare)."""

    class Kind(models.TextChoices):
        CHECKOUT = "checkout", _("checkout")
        LINK = "link", _("payment link (price difference)")
        STAFF = "staff", _("taken by staff")
        ACCOUNT = "account", _("payment on account")

    class State(models.TextChoices):
        PENDING = "pending", _("pending")
        RECEIVED = "received", _("received")
        FAILED = "failed", _("failed")
        CANCELLED = "cancelled", _("cancelled")

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    state = models.CharField(_("state"), max_length=10, choices=State.choices, default=State.PENDING)
    provider = models.CharField(_("payment provider"), max_length=20, blank=True)
    provider_session_id = models.CharField(
        _("provider session"), max_length=255, null=True, blank=True, unique=True
    )
    payment_intent_id = models.CharField(_("payment intent"), max_length=255, blank=True, db_index=True)
    amount_cents = models.PositiveIntegerField(_("amount (cents)"))
    currency = models.CharField(_("currency"), max_length=3, default=CURRENCY)
    # The price difference (change, waiting, no-show fee) this pays, when it pays one.
    surcharge = models.OneToOneField(
        "Surcharge",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="payment",
        verbose_name=_("price difference"),
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("recorded by"),
    )
    bookings: "models.ManyToManyField[Booking, PaymentShare]" = models.ManyToManyField(
        "booking.Booking", through="PaymentShare", related_name="payments", verbose_name=_("bookings")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    received_at = models.DateTimeField(_("received at"), null=True, blank=True)

    class Meta:
        ordering = ["received_at", "pk"]
        verbose_name, verbose_name_plural = _("payment"), _("payments")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.amount_cents} ({self.state})"

    @property
    def amount(self) -> Decimal:
        return from_cents(self.amount_cents)


class PaymentShare(models.Model):
    """The part of a payment that pays one booking: a payment for a return trip carries both rides."""

    payment = models.ForeignKey(
        Payment, on_delete=models.PROTECT, related_name="shares", verbose_name=_("payment")
    )
    booking = models.ForeignKey(
        "booking.Booking", on_delete=models.PROTECT, related_name="payment_shares", verbose_name=_("booking")
    )
    amount_cents = models.PositiveIntegerField(_("amount (cents)"))

    class Meta:
        verbose_name, verbose_name_plural = _("payment share"), _("payment shares")
        constraints = [models.UniqueConstraint(fields=["payment", "booking"], name="one_share_per_booking")]

    def __str__(self) -> str:
        return f"{self.booking} {self.amount_cents}"

    @property
    def amount(self) -> Decimal:
        return from_cents(self.amount_cents)


class Refund(models.Model):
    """Money given back for a booking: through the payment provider (its state follows the provider's
    refund events) or by staff outside it (cash, bank transfer), recorded as done."""

    class Method(models.TextChoices):
        PROVIDER = "provider", _("payment provider")
        MANUAL = "manual", _("by staff, outside the provider")

    booking = models.ForeignKey("booking.Booking", on_delete=models.PROTECT, related_name="refunds")
    # The payment this money goes back to (payments/ledger.py: newest first, to the payment it came from).
    payment = models.ForeignKey(
        Payment, null=True, blank=True, on_delete=models.PROTECT, related_name="refunds", editable=False
    )
    amount_cents = models.PositiveIntegerField()
    currency = models.CharField(max_length=3, default=CURRENCY)
    status = models.CharField(max_length=20, choices=RefundStatus.choices)
    method = models.CharField(max_length=10, choices=Method.choices, default=Method.PROVIDER)
    provider_refund_id = models.CharField(max_length=255, null=True, blank=True, unique=True)
    reason = models.CharField(max_length=200, blank=True)
    failure_reason = models.CharField(max_length=100, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The price difference (waiting, no-show fee, change) whose payment this gives back, when it is one: what
    # was charged for a cause less what went back for it is a query over these rows.
    surcharge = models.ForeignKey(
        "Surcharge", null=True, blank=True, on_delete=models.PROTECT, related_name="refunds", editable=False
    )
    # The one-time key of the staff form that asked for it: the same form sent twice refunds once.
    request_key = models.CharField(max_length=64, null=True, blank=True, unique=True, editable=False)
    # What its credit note prints besides the amount, fixed when it is made (a price set by hand's reason).
    details = models.JSONField(default=dict, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]
        verbose_name, verbose_name_plural = _("refund"), _("refunds")

    def __str__(self) -> str:
        return f"{self.booking} refund {self.amount_cents} ({self.status})"

    @property
    def payment_intent_id(self) -> str:
        """The provider payment it goes back to through the provider ("" for money staff give back)."""
        if self.method != self.Method.PROVIDER or self.payment is None:
            return ""
        return self.payment.payment_intent_id

    @property
    def amount(self) -> Decimal:
        return from_cents(self.amount_cents)


class Surcharge(models.Model):
    """Money the customer owes beyond the price: a price difference after staff changed the ride, or, after
    the ride, waiting beyond what was included or a no-show fee (dispatch/ride_billing.py). Paid through a
    payment link the customer gets by e-mail, or collected by staff and confirmed by them; a pending one
    without a link is owed (an invoice or cash booking) for staff to collect or waive. A link a later change
    or a cancellation made void is waived (its page closed); money that still arrives through it goes back."""

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
    payment_url = models.URLField(max_length=1000, blank=True)
    # Why it is owed, for the traveller's e-mail and page: the prices before and after a change, the
    # minutes waited, the no-show fee's terms (payments/surcharges.py WHY_KEYS).
    details = models.JSONField(default=dict, blank=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        verbose_name, verbose_name_plural = _("price difference"), _("price differences")

    def __str__(self) -> str:
        return f"{self.booking} surcharge {self.amount_cents} ({self.status})"

    # Its payment holds the provider ids and when the money came (payments/ledger.py). Read afresh, not
    # through the cached reverse accessor: the ledger moves that row on instances of its own.
    def _payment(self) -> Payment | None:
        return Payment.objects.filter(surcharge=self).first() if self.pk else None

    @property
    def provider_session_id(self) -> str | None:
        """Its payment page's session at the provider; None without a page (owed, or collected by staff)."""
        payment = self._payment()
        return payment.provider_session_id if payment else None

    @property
    def payment_intent_id(self) -> str:
        """The provider payment that paid it ("" when none did)."""
        payment = self._payment()
        return payment.payment_intent_id if payment else ""

    @property
    def paid_at(self) -> datetime | None:
        """When its money arrived (also through a withdrawn link, given back); None while none did."""
        payment = self._payment()
        return payment.received_at if payment and payment.state == Payment.State.RECEIVED else None

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
        # A quote request's retries (quote_requests/retries.py): no booking, the same replay.
        QUOTE_V1 = "quote-v1", "POST /api/v1/quote-requests"
        QUOTE_PAGE = "quote-page", "POST /api/page/quote-requests"

    door = models.CharField(max_length=10, choices=Door.choices)
    caller = models.CharField(max_length=100, help_text="Whose key: a token or a client address.")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the request's JSON body.")
    status_code = models.PositiveSmallIntegerField(null=True)
    # The answer's JSON as sent: PostgreSQL's jsonb would reorder its keys, and a replay is the same bytes.
    response = models.TextField(default="")
    # The booking the first answer made: a replay never hands out a booking that can no longer be paid.
    booking = models.ForeignKey(
        "booking.Booking", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["door", "caller", "key"], name="one_answer_per_door_caller_key")
        ]

    def __str__(self) -> str:
        return f"{self.door} {self.caller} {self.key}"


class AccountPayment(models.Model):
    """A company's transfer against its collective invoice, recorded by staff: the link between the invoice
    and the money, which is a payment in the ledger (its amount, day, state and shares over the invoice's
    rides). An invoice is open while its received payments add up to less than its gross, overdue once its
    due date has passed."""

    invoice = models.ForeignKey(
        "invoicing.Invoice",
        on_delete=models.PROTECT,
        related_name="account_payments",
        verbose_name=_("invoice"),
    )
    payment = models.OneToOneField(
        Payment, on_delete=models.PROTECT, related_name="on_account", verbose_name=_("payment")
    )
    note = models.CharField(_("note"), max_length=200, blank=True)

    class Meta:
        ordering = ["payment__received_at", "pk"]
        verbose_name, verbose_name_plural = _("payment on account"), _("payments on account")

    def __str__(self) -> str:
        return f"{self.invoice} {self.amount_cents}"

    @property
    def amount_cents(self) -> int:
        return self.payment.amount_cents

    @property
    def amount(self) -> Decimal:
        return self.payment.amount

    @property
    def received_on(self) -> date:
        """The day the bank received it (its payment's time is the start of that day in Vienna)."""
        return timezone.localtime(self.payment.received_at or self.payment.created_at, VIENNA).date()

    @property
    def recorded_by(self):
        return self.payment.recorded_by
