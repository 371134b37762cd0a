from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from booking.lead_time import (
    DEFAULT_MAX_DAYS_AHEAD,
    DEFAULT_MINIMUM_LEAD_MINUTES,
    DEFAULT_NIGHT_EARLIEST_PICKUP,
    DEFAULT_NIGHT_END,
    DEFAULT_NIGHT_START,
)
from pricing.money import CURRENCY, from_cents
from pricing.quote import BookingType, Quote


class LeadTimePolicy(models.Model):
    """The one lead-time policy (docs/decisions.md §5); the admin edits it, nobody adds a second. Its clock
    times are in the operator's time zone (TIME_ZONE, Europe/Vienna), where API date-times are read."""

    minimum_lead_minutes = models.PositiveIntegerField(
        _("minimum lead (minutes)"),
        default=DEFAULT_MINIMUM_LEAD_MINUTES,
        validators=[MaxValueValidator(7 * 24 * 60)],
        help_text=_("Least time between booking and pickup."),
    )
    night_start = models.TimeField(
        _("night starts"), default=DEFAULT_NIGHT_START, help_text=_("Bookings placed from this time …")
    )
    night_end = models.TimeField(
        _("night ends"),
        default=DEFAULT_NIGHT_END,
        help_text=_("… until this time are night bookings (equal times: no night rule)."),
    )
    night_earliest_pickup = models.TimeField(
        _("earliest pickup after a night booking"),
        default=DEFAULT_NIGHT_EARLIEST_PICKUP,
        help_text=_("A night booking gets no pickup before this time on the morning the night ends."),
    )
    max_days_ahead = models.PositiveIntegerField(
        _("latest pickup (days ahead)"),
        default=DEFAULT_MAX_DAYS_AHEAD,
        validators=[MaxValueValidator(3650)],
        help_text=_("Latest pickup, in days from booking."),
    )

    class Meta:
        verbose_name = verbose_name_plural = _("lead-time policy")

    def __str__(self) -> str:
        return str(_("Lead-time policy"))


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

    no_show_fee_percent = models.DecimalField(
        _("no-show fee (% of the price)"),
        max_digits=5,
        decimal_places=2,
        default=Decimal("100"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))],
        help_text=_(
            "Kept when the chauffeur waited the required time and the passenger did not come; "
            "the rest of what was paid goes back."
        ),
    )

    class Meta:
        verbose_name = verbose_name_plural = _("cancellation policy")

    def __str__(self) -> str:
        return str(_("Cancellation policy"))


class BookingStatus(models.TextChoices):
    PENDING_PAYMENT = "pending_payment", _("pending payment")
    PAID = "paid", _("paid")
    CONFIRMED = "confirmed", _("confirmed")
    COMPLETED = "completed", _("completed")
    CANCELLED = "cancelled", _("cancelled")
    EXPIRED = "expired", _("expired (checkout not completed)")
    PAYMENT_FAILED = "payment_failed", _("payment failed")


def state_in_english(code: str) -> str:
    """A state as the domain's English messages (API problems, operator alerts) name it, whatever the
    language of the request that caused them."""
    with translation.override("en"):
        return str(BookingStatus(code).label)


# How the ride is priced (pricing.quote.BookingType), as staff read it.
BOOKING_TYPES = [(BookingType.DISTANCE.value, _("by distance")), (BookingType.HOURLY.value, _("by the hour"))]


class BookingChannel(models.TextChoices):
    WEBSITE = "website", _("website")
    API = "api", _("REST API")
    AGENT = "agent", _("agent (MCP)")
    PHONE = "phone", _("phone (staff)")


class PaymentMethod(models.TextChoices):
    CHECKOUT = "checkout", _("online checkout")
    INVOICE = "invoice", _("invoice")
    CASH = "cash", _("cash")
    ACCOUNT = "account", _("on account (company)")


class Booking(models.Model):
    """A ride a customer is paying or has paid for. Stored before the payment provider is called, so
    nothing a customer paid for can be lost; states change only through booking.transitions."""

    reference = models.CharField(_("reference"), max_length=12, unique=True, editable=False)
    status = models.CharField(
        _("state"),
        max_length=20,
        choices=BookingStatus.choices,
        default=BookingStatus.PENDING_PAYMENT,
        db_index=True,
    )
    # The ride, as the customer asked for it (section 2.3 of the interface document).
    origin = models.CharField(_("from"), max_length=500)
    destination = models.CharField(_("to"), max_length=500)
    pickup_at = models.DateTimeField(_("pickup"), null=True, blank=True, db_index=True)
    vehicle_class = models.CharField(_("class"), max_length=20)
    booking_type = models.CharField(
        _("booked"), max_length=10, choices=BOOKING_TYPES, default=BookingType.DISTANCE.value
    )
    duration_hours = models.DecimalField(_("hours"), max_digits=5, decimal_places=2, null=True, blank=True)
    tour_slug = models.SlugField(_("tour"), blank=True)
    # Who and what rides, as the customer said (empty: not said); the extras are the price's lines.
    passengers = models.PositiveSmallIntegerField(_("passengers"), null=True, blank=True)
    luggage = models.PositiveSmallIntegerField(_("pieces of luggage"), null=True, blank=True)
    # Stops on the way, in order: [{"address", "place_id", "wait_minutes"}] (booking/ride_stops.py).
    stops = models.JSONField(_("stops on the way"), default=list, blank=True)
    # A return trip's way back names its way out: two rides, paid by one payment (booking/trips.py).
    way_out = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="way_back",
        editable=False,
        verbose_name=_("way out"),
        help_text=_("The ride out of the return trip this ride is the way back of."),
    )
    # What the server computed: the route and the price the customer is charged.
    distance_km = models.DecimalField(
        _("distance (km)"), max_digits=8, decimal_places=1, null=True, blank=True
    )
    duration_s = models.PositiveIntegerField(_("driving time (s)"), null=True, blank=True)
    estimated_arrival = models.DateTimeField(_("estimated arrival"), null=True, blank=True)
    in_zone_a = models.BooleanField(_("in Zone A"), null=True)
    quote_record = models.JSONField(
        _("quote"),
        help_text=_("The server's price: gross, net, VAT and lines (pricing.quote.Quote.as_record)."),
    )
    amount_cents = models.PositiveIntegerField(_("price (cents)"))
    currency = models.CharField(_("currency"), max_length=3, default=CURRENCY)
    # The customer.
    name = models.CharField(_("name"), max_length=200, blank=True)
    email = models.EmailField(_("e-mail"), blank=True)
    phone = models.CharField(_("phone"), max_length=50, blank=True)
    locale = models.CharField(_("language"), max_length=2, default="en")
    notes = models.TextField(_("notes"), blank=True)
    text_messages = models.BooleanField(
        _("text messages"),
        default=False,
        help_text=_("The traveller also wants the ride's messages by SMS (to the phone number above)."),
    )
    flight_number = models.CharField(_("flight"), max_length=20, blank=True)
    water_choice = models.CharField(_("water"), max_length=100, blank=True)
    tour_name = models.CharField(_("tour name"), max_length=200, blank=True)
    flight_data = models.JSONField(_("flight data"), null=True, blank=True)
    booking_data = models.JSONField(_("booking data"), help_text=_("The booking data exactly as submitted."))
    channel = models.CharField(
        _("channel"), max_length=10, choices=BookingChannel.choices, default=BookingChannel.WEBSITE
    )
    api_token = models.ForeignKey(
        "access.ApiToken",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("API token"),
        help_text=_("The token that booked it (REST API or agent): it may read and cancel the booking."),
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
    # Dispatch: set together when staff assign the ride (dispatch/assignment.py), which confirms it.
    driver = models.ForeignKey(
        "fleet.Driver",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="rides",
        verbose_name=_("driver"),
    )
    vehicle = models.ForeignKey(
        "fleet.Vehicle",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="rides",
        verbose_name=_("vehicle"),
    )
    # How the customer pays; the money and the provider's payment page are in payments' ledger.
    payment_method = models.CharField(
        _("payment method"), max_length=10, choices=PaymentMethod.choices, default=PaymentMethod.CHECKOUT
    )
    paid_at = models.DateTimeField(_("paid at"), null=True, blank=True)
    # Business customers (corporate/): a ride on account goes onto its company's monthly collective invoice.
    company_account = models.ForeignKey(
        "business.CompanyAccount",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="bookings",
        verbose_name=_("company account"),
    )
    # The address the invoice names (UStG §11: required above €400) and the customer's UID (above €10,000).
    billing_address = models.TextField(_("billing address"), blank=True)
    billing_vat_id = models.CharField(_("customer's VAT id (UID)"), max_length=20, blank=True)
    # The share of the route's distance that lies in Austria (0–1), for cross-border rides; empty: all.
    austria_share = models.DecimalField(
        _("share of the route in Austria"), max_digits=4, decimal_places=3, null=True, blank=True
    )
    # While the operator profile lacks the seller's legal details, the booking's invoices and credit notes
    # wait (payments/waiting_documents.py): since when, and its ride invoice's content as it was when paid.
    documents_waiting_since = models.DateTimeField(
        _("documents waiting since"),
        null=True,
        blank=True,
        editable=False,
        db_index=True,
        help_text=_("Its invoices wait for the seller's legal details in the operator profile."),
    )
    invoice_draft = models.JSONField(null=True, blank=True, editable=False)
    cancelled_at = models.DateTimeField(_("cancelled at"), null=True, blank=True)
    cancellation_fee_cents = models.PositiveIntegerField(_("cancellation fee (cents)"), null=True, blank=True)
    confirmation_sent_at = models.DateTimeField(
        _("confirmation sent at"),
        null=True,
        blank=True,
        help_text=_("Set once the confirmation was delivered, never before."),
    )
    confirmation_claimed_at = models.DateTimeField(
        _("confirmation claimed at"),
        null=True,
        blank=True,
        help_text=_("A sender is on the confirmation since then (a lease: it lapses)."),
    )
    anonymised_at = models.DateTimeField(
        _("personal data removed at"),
        null=True,
        blank=True,
        editable=False,
        help_text=_("The traveller's name, contact, addresses and notes were removed then (privacy)."),
    )
    created_at = models.DateTimeField(_("booked at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name, verbose_name_plural = _("booking"), _("bookings")
        # Money moves are their own permissions, beyond changing a booking (README "Staff permissions").
        permissions = [
            ("refund_booking", _("Can refund bookings and confirm refunds paid back by staff")),
            ("record_payment", _("Can record money taken by staff (invoice, cash, a price difference)")),
            # Beyond the tariff and the clock: a negotiated or corrected price, a ride already driven.
            ("set_price", _("Can set a ride's price by hand, with a reason")),
            ("record_past_ride", _("Can record a ride whose pickup time has passed")),
        ]

    def __str__(self) -> str:
        return self.reference

    @property
    def quote(self) -> Quote:
        return Quote.from_record(self.quote_record)

    @property
    def destination_shown(self) -> str:
        """The destination as pages, e-mails and staff read it: an hourly hire or a tour booked without
        one goes "as directed" (the traveller tells the chauffeur on the way)."""
        return self.destination or str(_("As directed"))

    @property
    def cancellation_fee(self) -> Decimal | None:
        return None if self.cancellation_fee_cents is None else from_cents(self.cancellation_fee_cents)

    @property
    def money_received(self) -> bool:
        """Whether a payment arrived, even one for a booking that could no longer be paid."""
        return self.paid_at is not None


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
        RIDE = "ride", _("ride")
        NOTE = "note", _("internal note")

    booking = models.ForeignKey(
        Booking, on_delete=models.CASCADE, related_name="history", verbose_name=_("booking")
    )
    at = models.DateTimeField(_("at"), auto_now_add=True, db_index=True)
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    actor = models.CharField(
        _("by"), max_length=150, help_text=_("Who: a staff user, the customer, a token, the provider.")
    )
    text = models.TextField(_("text"), help_text=_("In English as recorded (a note: as typed)."))
    # The entry as booking.history.said() made it, worded in the reader's language when shown; empty for
    # notes and for entries recorded before (they show their text).
    message = models.CharField(_("message"), max_length=300, blank=True)
    params = models.JSONField(_("values"), default=dict, blank=True)

    class Meta:
        ordering = ["at", "pk"]
        verbose_name, verbose_name_plural = _("history entry"), _("history entries")

    def __str__(self) -> str:
        return f"{self.booking} {self.kind}: {self.text[:40]}"


class RideState(models.TextChoices):
    """The ride's day, after assignment: the chauffeur moves it on from the job page (dispatch/ride_day.py).
    The booking's own state stays confirmed until the ride is completed or a no-show."""

    ACCEPTED = "accepted", _("accepted")
    ON_THE_WAY = "on_the_way", _("on the way")
    ARRIVED = "arrived", _("arrived")
    ON_BOARD = "on_board", _("passenger on board")
    COMPLETED = "completed", _("completed")
    NO_SHOW = "no_show", _("no-show")


class RideStep(models.Model):
    """One move of the ride's day, with its time and who made it. Staff may undo the last one (a wrong or
    late tap): it is kept, marked undone, so the record shows what happened."""

    booking = models.ForeignKey(
        Booking, on_delete=models.CASCADE, related_name="ride_steps", verbose_name=_("booking")
    )
    state = models.CharField(_("ride state"), max_length=12, choices=RideState.choices)
    at = models.DateTimeField(_("at"), db_index=True)
    actor = models.CharField(_("by"), max_length=150)
    undone_at = models.DateTimeField(_("undone at"), null=True, blank=True)
    undone_by = models.CharField(_("undone by"), max_length=150, blank=True)

    class Meta:
        ordering = ["at", "pk"]
        verbose_name, verbose_name_plural = _("ride step"), _("ride steps")

    def __str__(self) -> str:
        return f"{self.booking} {self.state}"


class FlightStatus(models.TextChoices):
    NOT_TRACKED = "not_tracked", _("not tracked")
    UNKNOWN = "unknown", _("flight not found")
    SCHEDULED = "scheduled", _("scheduled")
    DEPARTED = "departed", _("in the air")
    LANDED = "landed", _("landed")
    CANCELLED = "cancelled", _("flight cancelled")
    DIVERTED = "diverted", _("diverted")


class FlightWatch(models.Model):
    """What the flight an airport pickup meets last said (dispatch/arrivals.py polls it), and the pickup as
    booked before the flight moved it."""

    booking = models.OneToOneField(
        "booking.Booking", on_delete=models.CASCADE, related_name="flight_watch", verbose_name=_("booking")
    )
    flight_number = models.CharField(_("flight"), max_length=20)
    status = models.CharField(
        _("status"), max_length=20, choices=FlightStatus.choices, default=FlightStatus.SCHEDULED
    )
    origin_airport = models.CharField(_("from airport"), max_length=4, blank=True)
    arrival_airport = models.CharField(_("landing at"), max_length=4, blank=True)
    from_schengen = models.BooleanField(_("from the Schengen area"), null=True, blank=True)
    scheduled_landing = models.DateTimeField(_("scheduled landing"), null=True, blank=True)
    estimated_landing = models.DateTimeField(_("estimated landing"), null=True, blank=True)
    actual_landing = models.DateTimeField(_("landed at"), null=True, blank=True)
    booked_pickup_at = models.DateTimeField(_("pickup as booked"))
    # The pickup as the flight last left it: another time on the booking is staff's or an agent's change,
    # which becomes the time booked.
    followed_pickup_at = models.DateTimeField(_("pickup as followed"), null=True, blank=True)
    checked_at = models.DateTimeField(_("last checked"), null=True, blank=True)
    next_check_at = models.DateTimeField(_("next check"), null=True, blank=True)
    unavailable_since = models.DateTimeField(_("flight data unavailable since"), null=True, blank=True)
    alerted_status = models.CharField(max_length=20, blank=True)  # cancelled/diverted: staff alerted once

    class Meta:
        verbose_name, verbose_name_plural = _("flight watch"), _("flight watches")

    def __str__(self) -> str:
        return f"{self.flight_number} → {self.booking}"


class ChauffeurPosition(models.Model):
    """Where the chauffeur's phone last was on the way to the pickup, shared with the ride's traveller
    (dispatch/positions.py stores it, booking/ride_position.py reads it). The row is the chauffeur's
    consent: made when they turn sharing on, gone when they turn it off, the passenger is on board or the
    ride ends otherwise. Only the latest position is kept, written over by the next."""

    booking = models.OneToOneField(
        "booking.Booking",
        on_delete=models.CASCADE,
        related_name="chauffeur_position",
        verbose_name=_("booking"),
    )
    driver = models.ForeignKey(
        "fleet.Driver", on_delete=models.CASCADE, related_name="+", verbose_name=_("driver")
    )
    consented_at = models.DateTimeField(_("sharing turned on at"))
    latitude = models.FloatField(_("latitude"), null=True, blank=True)  # none until the phone's first fix
    longitude = models.FloatField(_("longitude"), null=True, blank=True)
    accuracy_m = models.PositiveIntegerField(_("accuracy (metres)"), null=True, blank=True)
    measured_at = models.DateTimeField(_("measured at"), null=True, blank=True)
    received_at = models.DateTimeField(_("received at"), null=True, blank=True)

    class Meta:
        verbose_name, verbose_name_plural = _("chauffeur's position"), _("chauffeurs' positions")

    def __str__(self) -> str:
        return f"{self.driver} → {self.booking}"
