from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from booking.lead_time import (
    DEFAULT_MAX_DAYS_AHEAD,
    DEFAULT_MINIMUM_LEAD_MINUTES,
    DEFAULT_NIGHT_EARLIEST_PICKUP,
    DEFAULT_NIGHT_END,
    DEFAULT_NIGHT_START,
)
from pricing.money import CURRENCY, from_cents
from pricing.quote import Quote


class LeadTimePolicy(models.Model):
    """The one lead-time policy (docs/decisions.md §5); the admin edits it, nobody adds a second. Its clock
    times are in the operator's time zone (TIME_ZONE, Europe/Vienna), where API date-times are read."""

    minimum_lead_minutes = models.PositiveIntegerField(
        default=DEFAULT_MINIMUM_LEAD_MINUTES,
        validators=[MaxValueValidator(7 * 24 * 60)],
        help_text="Least time between booking and pickup.",
    )
    night_start = models.TimeField(default=DEFAULT_NIGHT_START, help_text="Bookings placed from this time …")
    night_end = models.TimeField(
        default=DEFAULT_NIGHT_END,
        help_text="… until this time are night bookings (equal times: no night rule).",
    )
    night_earliest_pickup = models.TimeField(
        default=DEFAULT_NIGHT_EARLIEST_PICKUP,
        help_text="A night booking gets no pickup before this time on the morning the night ends.",
    )
    max_days_ahead = models.PositiveIntegerField(
        default=DEFAULT_MAX_DAYS_AHEAD,
        validators=[MaxValueValidator(3650)],
        help_text="Latest pickup, in days from booking.",
    )

    class Meta:
        verbose_name = verbose_name_plural = "lead-time policy"

    def __str__(self) -> str:
        return "Lead-time policy"


class CancellationPolicy(models.Model):
    """The one cancellation policy (booking/cancellation.py), applied alike to staff, customers and agents.
    Hours are real elapsed time before the pickup, as the lead time's minutes are."""

    free_until_hours = models.PositiveIntegerField(
        _("free until (hours before pickup)"),
        default=24,
        validators=[MaxValueValidator(24 * 60)],
        help_text=_("Cancelling is free until this many hours before the pickup."),
    )
    late_fee_percent = models.DecimalField(
        _("late fee (% of the price)"),
        max_digits=5,
        decimal_places=2,
        default=Decimal("50"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))],
        help_text=_(
            "Kept when cancelling later, up to the pickup; from the pickup on, the whole price is kept."
        ),
    )

    class Meta:
        verbose_name = verbose_name_plural = _("cancellation policy")

    def __str__(self) -> str:
        return str(_("Cancellation policy"))


class BookingStatus(models.TextChoices):
    PENDING_PAYMENT = "pending_payment", "pending payment"
    PAID = "paid", "paid"
    CONFIRMED = "confirmed", "confirmed"
    COMPLETED = "completed", "completed"
    CANCELLED = "cancelled", "cancelled"
    EXPIRED = "expired", "expired (checkout not completed)"
    PAYMENT_FAILED = "payment_failed", "payment failed"


class BookingChannel(models.TextChoices):
    WEBSITE = "website", _("website")
    API = "api", _("REST API")
    AGENT = "agent", _("agent (MCP)")
    PHONE = "phone", _("phone (staff)")


class PaymentMethod(models.TextChoices):
    CHECKOUT = "checkout", _("online checkout")
    INVOICE = "invoice", _("invoice")
    CASH = "cash", _("cash")


class Booking(models.Model):
    """A ride a customer is paying or has paid for. Stored before the payment provider is called, so
    nothing a customer paid for can be lost; states change only through booking.transitions."""

    reference = models.CharField(max_length=12, unique=True, editable=False)
    status = models.CharField(
        max_length=20, choices=BookingStatus.choices, default=BookingStatus.PENDING_PAYMENT, db_index=True
    )
    # The ride, as the customer asked for it (section 2.3 of the interface document).
    origin = models.CharField("from", max_length=500)
    destination = models.CharField("to", max_length=500)
    pickup_at = models.DateTimeField("pickup", null=True, blank=True, db_index=True)
    vehicle_class = models.CharField(max_length=20)
    booking_type = models.CharField(max_length=10, default="distance")
    duration_hours = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True)
    tour_slug = models.SlugField(blank=True)
    # What the server computed: the route and the price the customer is charged.
    distance_km = models.DecimalField(max_digits=8, decimal_places=1, null=True, blank=True)
    duration_s = models.PositiveIntegerField(null=True, blank=True)
    estimated_arrival = models.DateTimeField(null=True, blank=True)
    in_zone_a = models.BooleanField(null=True)
    quote_record = models.JSONField(
        "quote", help_text="The server's price: gross, net, VAT and lines (pricing.quote.Quote.as_record)."
    )
    amount_cents = models.PositiveIntegerField()
    currency = models.CharField(max_length=3, default=CURRENCY)
    # The customer.
    name = models.CharField(max_length=200, blank=True)
    email = models.EmailField(blank=True)
    phone = models.CharField(max_length=50, blank=True)
    locale = models.CharField(max_length=2, default="en")
    notes = models.TextField(blank=True)
    flight_number = models.CharField(max_length=20, blank=True)
    water_choice = models.CharField(max_length=100, blank=True)
    tour_name = models.CharField(max_length=200, blank=True)
    flight_data = models.JSONField(null=True, blank=True)
    booking_data = models.JSONField(help_text="The booking data exactly as submitted.")
    channel = models.CharField(max_length=10, choices=BookingChannel.choices, default=BookingChannel.WEBSITE)
    api_token = models.ForeignKey(
        "access.ApiToken",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The token that booked it (REST API or agent): it may read and cancel the booking.",
    )
    # The terms and conditions the booking was made under: ticked by the traveller on the booking page, or
    # accepted by the API client's or agent's checkout on the traveller's behalf (README "Legal pages").
    accepted_terms = models.ForeignKey(
        "company.LegalText",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("accepted terms"),
    )
    terms_accepted_at = models.DateTimeField(_("terms accepted at"), null=True, blank=True)
    # Dispatch: set together when staff assign the ride (booking/assignment.py), which confirms it.
    driver = models.ForeignKey(
        "fleet.Driver", null=True, blank=True, on_delete=models.PROTECT, related_name="rides"
    )
    vehicle = models.ForeignKey(
        "fleet.Vehicle", null=True, blank=True, on_delete=models.PROTECT, related_name="rides"
    )
    # The payment.
    payment_provider = models.CharField(max_length=20)
    provider_session_id = models.CharField(max_length=255, null=True, blank=True, unique=True)
    payment_intent_id = models.CharField(max_length=255, blank=True)
    payment_method = models.CharField(
        max_length=10, choices=PaymentMethod.choices, default=PaymentMethod.CHECKOUT
    )
    paid_at = models.DateTimeField(null=True, blank=True)
    received_cents = models.PositiveIntegerField(
        default=0, help_text="Money received: the payment, plus price differences paid after a change."
    )
    marked_paid_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    cancelled_at = models.DateTimeField(null=True, blank=True)
    cancellation_fee_cents = models.PositiveIntegerField(null=True, blank=True)
    confirmation_sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.reference

    @property
    def quote(self) -> Quote:
        return Quote.from_record(self.quote_record)

    @property
    def cancellation_fee(self) -> Decimal | None:
        return None if self.cancellation_fee_cents is None else from_cents(self.cancellation_fee_cents)

    @property
    def money_received(self) -> bool:
        """Whether a payment arrived, even one for a booking that could no longer be paid."""
        return self.paid_at is not None


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

    booking = models.ForeignKey(Booking, on_delete=models.PROTECT, related_name="refunds")
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
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.booking} refund {self.amount_cents} ({self.status})"

    @property
    def amount(self) -> Decimal:
        return from_cents(self.amount_cents)


class Surcharge(models.Model):
    """A price difference the customer owes after staff changed the ride: paid through a payment link
    the customer gets by e-mail, or collected by staff and confirmed by them."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for payment")
        PAID = "paid", _("paid")
        WAIVED = "waived", _("waived")

    booking = models.ForeignKey(Booking, on_delete=models.PROTECT, related_name="surcharges")
    amount_cents = models.PositiveIntegerField()
    currency = models.CharField(max_length=3, default=CURRENCY)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    method = models.CharField(max_length=10, choices=Refund.Method.choices, default=Refund.Method.PROVIDER)
    provider_session_id = models.CharField(max_length=255, null=True, blank=True, unique=True)
    payment_url = models.URLField(max_length=1000, blank=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.booking} surcharge {self.amount_cents} ({self.status})"

    @property
    def amount(self) -> Decimal:
        return from_cents(self.amount_cents)


class BookingEvent(models.Model):
    """One line of a booking's history: state changes, payments, assignments, changes, refunds, e-mails
    and the notes staff keep (internal: never shown to the customer)."""

    class Kind(models.TextChoices):
        STATUS = "status", _("state")
        PAYMENT = "payment", _("payment")
        ASSIGNMENT = "assignment", _("assignment")
        CHANGE = "change", _("change")
        REFUND = "refund", _("refund")
        EMAIL = "email", _("e-mail")
        NOTE = "note", _("internal note")

    booking = models.ForeignKey(Booking, on_delete=models.CASCADE, related_name="history")
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    actor = models.CharField(
        max_length=150, help_text=_("Who: a staff user, the customer, a token, the provider.")
    )
    text = models.TextField()

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"{self.booking} {self.kind}: {self.text[:40]}"


class ProcessedPaymentEvent(models.Model):
    """Each provider event id once: a replayed webhook changes nothing."""

    event_id = models.CharField(max_length=255, unique=True)
    event_type = models.CharField(max_length=100)
    booking = models.ForeignKey(Booking, null=True, on_delete=models.SET_NULL, related_name="payment_events")
    received_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id}"


class IdempotentCheckout(models.Model):
    """The first successful answer to a checkout sent with an idempotency key (booking.idempotency).
    `status_code` is empty while that first request is still running."""

    caller = models.CharField(max_length=100, help_text="Whose key: a token or a client address.")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the request's JSON body.")
    status_code = models.PositiveSmallIntegerField(null=True)
    response = models.JSONField(null=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["caller", "key"], name="one_answer_per_caller_key")]

    def __str__(self) -> str:
        return f"{self.caller} {self.key}"
