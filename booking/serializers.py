"""Input and output declarations of the booking operations (legacy, /api/v1, OpenAPI, MCP)."""

import re

from django.conf import settings
from django.core.validators import RegexValidator
from rest_framework import serializers

from apikit.declarations import Declaration
from apikit.fields import (
    AcceptanceField,
    FixedDecimalField,
    FromFieldMixin,
    JsonBooleanField,
    JsonIntegerField,
    JsonObjectField,
    LocalDateTimeField,
    PlainDecimalField,
    PlainIntegerField,
    TextField,
    json_size,
    too_large,
)
from booking import listing
from booking.billing import MAX_ADDRESS_LENGTH, VAT_ID_PATTERN, normalised_vat_id
from booking.checkout import MAX_NOTES_LENGTH, BookingRequest, WayBack
from booking.lead_time import Reason
from booking.models import BookingStatus, FlightStatus, RideState
from booking.ride_stops import MAX_STOP_ADDRESS, SEPARATOR, Stop
from places.serializers import DistanceOutput, V1DistanceInput
from pricing.models import VehicleClass
from pricing.quote import (
    MAX_DISTANCE_KM,
    MAX_HOURLY_HOURS,
    MAX_STOP_WAIT_MINUTES,
    MAX_STOPS,
    MIN_HOURLY_HOURS,
    WAITING_BLOCK_MINUTES,
    BookingType,
)
from pricing.serializers import ExtrasField, PriceInput, PriceOutput, euros, luggage_field, passengers_field
from sitekit import phones
from sitekit.validators import one_line


class AvailabilityInput(Declaration):
    pickupDatetime = LocalDateTimeField(
        source="pickup", help_text="Wanted pickup, ISO 8601; without offset it is Vienna local time."
    )
    bookingDatetime = LocalDateTimeField(
        source="booked_at", required=False, help_text="When the booking is placed; default now."
    )


class AvailabilityOutput(Declaration):
    available = serializers.BooleanField()
    pickupDatetime = LocalDateTimeField(source="pickup")
    bookingDatetime = LocalDateTimeField(source="booked_at")
    earliestPickup = LocalDateTimeField(source="earliest_pickup")
    reason = serializers.ChoiceField(
        choices=[(reason.value, reason.value) for reason in Reason],
        allow_null=True,
        help_text="Why the pickup is not available; null when it is.",
    )


# What an unpaid booking may make us store, in bytes of UTF-8 JSON: anyone may post one, so without a cap
# 11 values of 200 kB would keep 4.4 MB per anonymous booking, twice. Every text field has its own maxLength
# besides.
MAX_FLIGHT_DATA_BYTES = 4 * 1024
MAX_BOOKING_DATA_BYTES = 16 * 1024


PHONE_FORMAT = (
    "A number the chauffeur can call: E.164 (`+436641234567`) or as dialled in Austria (`0664 123 45 67`; "
    "without a country code it is Austrian), digits with spaces, `+ ( ) - / .`; stored and answered as "
    "E.164. Premium-rate, shared-cost and international-network numbers are refused (400 `invalid_phone`)."
)


class BookingDataInput(FromFieldMixin, Declaration):
    """Section 2.3 of the interface document: the booking a customer asks for. At most 16384 bytes as
    JSON (UTF-8), every member counted, declared or not."""

    from_options = dict(max_length=500, source="origin", help_text="Pickup address or place name.")

    to = TextField(max_length=500, source="destination", help_text="Destination address or place name.")
    pickupDatetime = LocalDateTimeField(
        required=False, source="pickup", help_text="ISO 8601; checked for lead time."
    )
    estimatedArrival = LocalDateTimeField(
        required=False, help_text="Informational; the server computes its own."
    )
    distanceKm = PlainDecimalField(
        required=False,
        min_value=0,
        max_value=MAX_DISTANCE_KM,
        help_text="Informational; the server computes its own.",
    )
    vehicleClass = serializers.ChoiceField(
        choices=VehicleClass.Code.choices, default="executive", source="vehicle_class"
    )
    bookingType = serializers.ChoiceField(
        choices=[(item.value, item.value) for item in BookingType], default="distance", source="booking_type"
    )
    durationHours = PlainDecimalField(
        required=False, min_value=MIN_HOURLY_HOURS, max_value=MAX_HOURLY_HOURS, source="duration_hours"
    )
    priceEur = PlainDecimalField(
        required=False, min_value=0, help_text="Informational; `amount` is what counts."
    )
    name = TextField(required=False, allow_blank=True, max_length=200)
    email = serializers.EmailField(required=False, allow_blank=True, max_length=254)
    phone = TextField(required=False, allow_blank=True, max_length=phones.MAX_LENGTH, help_text=PHONE_FORMAT)
    locale = serializers.ChoiceField(choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE)
    notes = TextField(required=False, allow_blank=True, max_length=MAX_NOTES_LENGTH)
    flightNumber = TextField(
        required=False,
        allow_blank=True,
        max_length=20,
        source="flight_number",
        help_text="The flight the traveller arrives on. Only at a pickup at an airport does the chauffeur "
        "meet it at arrivals, with the longer included wait; on any other ride it is kept for the "
        "chauffeur as information and changes nothing.",
    )
    waterChoice = TextField(required=False, allow_blank=True, max_length=100, source="water_choice")
    tourName = TextField(required=False, allow_blank=True, max_length=200, source="tour_name")
    flightData = JsonObjectField(
        max_bytes=MAX_FLIGHT_DATA_BYTES,
        required=False,
        allow_null=True,
        source="flight_data",
        help_text=f"Free-form object, at most {MAX_FLIGHT_DATA_BYTES} bytes as JSON (UTF-8).",
    )

    def to_internal_value(self, data):
        if isinstance(data, dict) and json_size(data) > MAX_BOOKING_DATA_BYTES:  # before any field's work
            raise serializers.ValidationError({"non_field_errors": [too_large(MAX_BOOKING_DATA_BYTES)]})
        return super().to_internal_value(data)


class BillingDataInput(Declaration):
    """The customer's billing details for the invoice (optional; UStG §11 wants the address above €400 and
    the UID above €10,000)."""

    billingAddress = TextField(
        required=False,
        allow_blank=True,
        max_length=MAX_ADDRESS_LENGTH,
        source="billing_address",
        help_text="The name and postal address the invoice names, on several lines (the customer's, e.g. "
        "their company's).",
    )
    billingVatId = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=20,
        source="billing_vat_id",
        trim_whitespace=False,  # the pattern says which separators may surround it: no others
        validators=[
            RegexValidator(
                VAT_ID_PATTERN, "Not a VAT id (UID) of an EU country, e.g. ATU12345678 or DE123456789."
            )
        ],
        help_text="The customer's EU VAT id (UID) for the invoice, e.g. ATU12345678 or DE123456789, in "
        "the format of its country (spaces, dots and hyphens between its characters allowed).",
    )

    def validate_billingVatId(self, value: str) -> str:
        return normalised_vat_id(value)


no_separator = RegexValidator(
    f"[{re.escape(SEPARATOR)}]", f"A stop's address has no {SEPARATOR!r}.", inverse_match=True
)


def optional_destination(help_text: str) -> TextField:
    """`to` where a ride may leave it out (empty: as directed, or a default the help text names)."""
    return TextField(
        max_length=500,
        source="destination",
        required=False,
        allow_blank=True,
        default="",
        help_text=help_text,
    )


class StopInput(Declaration):
    address = TextField(
        max_length=MAX_STOP_ADDRESS,
        validators=[one_line, no_separator],
        help_text="Where the car stops on the way, as GET /api/v1/distance's `stops` names it (no `|`).",
    )
    waitMinutes = JsonIntegerField(
        min_value=0,
        max_value=MAX_STOP_WAIT_MINUTES,
        default=0,
        source="wait_minutes",
        help_text=f"How long the car waits there (0–{MAX_STOP_WAIT_MINUTES}); billed per started "
        f"{WAITING_BLOCK_MINUTES} minutes at the waiting rate.",
    )


class StopsInput(Declaration):
    stops = serializers.ListField(
        child=StopInput(),
        required=False,
        max_length=MAX_STOPS,
        help_text=f"Stops on the way, in order (at most {MAX_STOPS}, fewer where the class allows fewer: 400 "
        "`too_many_stops`): the route, distance, Zone A and price run through them, and each is a line of "
        "the price (the tariff's stop fee and its wait).",
    )

    def validate_stops(self, stops: list[dict]) -> tuple[Stop, ...]:
        return tuple(Stop(stop["address"], stop["wait_minutes"]) for stop in stops)


class WayBackInput(FromFieldMixin, StopsInput):
    """A return trip's way back: a second ride, priced and shown on its own, paid with the way out."""

    from_options = dict(
        max_length=500,
        source="origin",
        required=False,
        allow_blank=True,
        default="",
        help_text="Where the way back starts; default (absent or empty): the way out's destination.",
    )

    to = optional_destination(
        "Where the way back ends; default (absent or empty): the way out's pickup address."
    )
    pickupDatetime = LocalDateTimeField(
        source="pickup",
        help_text="The way back's pickup, ISO 8601 (without offset: Vienna local time); after the way out "
        "arrives (400 naming `bookingData.wayBack` otherwise) and within the lead time (400 `lead_time`).",
    )
    flightNumber = TextField(
        required=False,
        allow_blank=True,
        default="",
        max_length=20,
        source="flight_number",
        help_text="The flight the traveller arrives on for the way back, when it starts at an airport.",
    )
    stops = serializers.ListField(
        child=StopInput(),
        required=False,
        default=list,
        max_length=MAX_STOPS,
        help_text="The way back's own stops on the way, in order (none by default).",
    )

    def validate(self, attrs: dict) -> WayBack:
        return WayBack(**attrs)


class TripInput(StopsInput):
    """Who and what rides, the extras and the stops: optional, beyond section 2.3 (the legacy door takes
    none)."""

    passengers = passengers_field(JsonIntegerField)
    luggage = luggage_field(JsonIntegerField)
    extras = ExtrasField()

    wayBack = WayBackInput(
        required=False,
        source="way_back",
        help_text="A return trip: the way back, booked with this ride as a second ride of its own (its own "
        "reference, chauffeur and cancellation terms) and paid with it: `amount` is both rides' prices "
        "together. The class, passengers, luggage and extras are this ride's. Transfers with a "
        "`pickupDatetime` only; absent: a single ride.",
    )


class V1BookingDataInput(BookingDataInput, BillingDataInput, TripInput):
    """Section 2.3's booking data with the customer's billing details for the invoice, the passengers, the
    luggage and the extras."""


PAYMENT_METHODS = [("checkout", "checkout"), ("account", "account")]


class CheckoutInput(Declaration):
    amount = JsonIntegerField(
        min_value=1, max_value=100_000_000, source="amount_cents", help_text="Gross EUR cents, VAT included."
    )
    bookingData = BookingDataInput()

    def booking_request(self) -> BookingRequest:
        """The validated ride for `start_checkout`, with the booking data as submitted kept for the record.
        Distance, arrival and price are the server's own: what the caller sent of them is informational."""
        data = dict(self.validated_data["bookingData"])
        for informational in ("estimatedArrival", "distanceKm", "priceEur"):
            data.pop(informational, None)
        nested = self.fields["bookingData"]
        declared = nested.fields if isinstance(nested, serializers.Serializer) else {}  # always one
        submitted = {key: value for key, value in self.initial_data["bookingData"].items() if key in declared}
        return BookingRequest(**data, submitted=submitted)


class V1CheckoutInput(CheckoutInput):
    """The /api/v1 checkout: the legacy payload, the customer's billing details, and how it is paid."""

    bookingData = V1BookingDataInput()
    paymentMethod = serializers.ChoiceField(
        choices=PAYMENT_METHODS,
        default="checkout",
        source="payment_method",
        help_text="`checkout` (default): a hosted payment page. `account`: on the company's account the "
        "bearer token is tied to, for a traveller (`bookingData.email`) the account allows; the booking is "
        "paid at once (no page; the company's monthly invoice lists it).",
    )


class ScheduledBookingDataInput(BookingDataInput):
    """Booking data whose sender names the pickup time and vehicle class itself (agents, the booking page)."""

    pickupDatetime = LocalDateTimeField(
        source="pickup", help_text="Pickup, ISO 8601; without offset it is Vienna local time."
    )
    vehicleClass = serializers.ChoiceField(choices=VehicleClass.Code.choices, source="vehicle_class")


class AgentBookingDataInput(ScheduledBookingDataInput, BillingDataInput, TripInput):
    """The ride to book: route, pickup time and vehicle class; the traveller's name, e-mail and phone let
    the chauffeur reach them. At most 16384 bytes as JSON (UTF-8)."""

    # Section 4.4: the website's tour and water choices and its raw flight data are not taken from agents.

    waterChoice = None  # type: ignore[assignment]  # None drops the inherited field (DRF)
    tourName = None  # type: ignore[assignment]  # None drops the inherited field (DRF)
    flightData = None  # type: ignore[assignment]  # None drops the inherited field (DRF)


class AgentCheckoutInput(V1CheckoutInput):
    """The booking.create_checkout tool's input: the v1 checkout payload with a stricter ride."""

    bookingData = AgentBookingDataInput()  # type: ignore[assignment]  # a stricter ride in the parent's place


class PageBookingDataInput(ScheduledBookingDataInput, BillingDataInput, TripInput):
    """The ride as the booking page sends it: with a pickup time, a vehicle class and the traveller's name,
    e-mail (the confirmation goes there) and phone (for the chauffeur). At most 16384 bytes as JSON
    (UTF-8), every member counted. Unlike the public API's (section 2.3 requires `to`), an hourly hire or
    a tour may leave the destination out: "as directed"."""

    to = optional_destination("Destination; may be empty for an hourly hire or a tour (as directed).")
    name = TextField(max_length=200)
    email = serializers.EmailField(max_length=254)
    phone = TextField(max_length=phones.MAX_LENGTH, help_text=PHONE_FORMAT)
    textMessages = JsonBooleanField(
        required=False,
        default=False,
        source="text_messages",
        help_text="true: the traveller also wants the ride's messages by SMS, to `phone`, which must then be "
        "a mobile number of a country the operator texts (400 `text_messages_unavailable` otherwise).",
    )


TERMS_REQUIRED = "Accept the terms and conditions to book."


class PageCheckoutInput(V1CheckoutInput):
    """The input of the page checkout (POST /api/page/checkout): the traveller must have ticked the terms."""

    bookingData = PageBookingDataInput()  # type: ignore[assignment]  # the page's ride in the parent's place
    termsAccepted = AcceptanceField(
        help_text="true: the traveller ticked that they accept the terms and conditions (/en/terms).",
        error_messages={"required": TERMS_REQUIRED, "null": TERMS_REQUIRED, "not_accepted": TERMS_REQUIRED},
    )

    def validate_termsAccepted(self, accepted: bool) -> bool:
        if accepted is not True:
            raise serializers.ValidationError(TERMS_REQUIRED)
        return accepted


class CheckoutOutput(Declaration):
    """The hosted checkout page the customer pays on."""

    # written from a booking.checkout.CheckoutResult
    sessionId = serializers.CharField(source="session.session_id")
    url = serializers.URLField(
        source="session.url", help_text="The hosted checkout page to send the customer to."
    )


class CheckedOutWayBackOutput(Declaration):
    reference = serializers.CharField(help_text="The way back's own reference.")
    amount = serializers.IntegerField(
        source="amount_cents", help_text="The way back's part of the checkout's `amount`, in EUR cents."
    )


class V1CheckoutOutput(CheckoutOutput):
    sessionId = serializers.CharField(
        source="session.session_id", allow_null=True, help_text="Null when booked on account."
    )
    url = serializers.URLField(
        source="session.url",
        allow_null=True,
        help_text="The hosted checkout page to send the customer to; null when booked on account.",
    )
    reference = serializers.CharField(
        source="booking.reference", help_text="The booking's reference, e.g. CB-7K3Q9X."
    )
    status = serializers.CharField(
        source="booking.status",
        help_text="pending_payment until the payment arrives; paid at once on a company's account.",
    )
    # Only in the answer of a booking on account: the checkout's answer keeps its four members.
    paymentMethod = serializers.CharField(
        source="booking.payment_method",
        required=False,
        help_text="`account` when booked on a company's account (absent for a checkout).",
    )
    manageUrl = serializers.URLField(
        source="manage_url",
        required=False,
        help_text="Booked on account: the customer's own page of the booking; pass it on to the traveller.",
    )
    wayBack = CheckedOutWayBackOutput(
        source="booking.way_back",
        required=False,
        help_text="Only for a return trip: the way back, a ride of its own paid with this one.",
    )

    def to_representation(self, result):
        answer = super().to_representation(result)
        if result.session is not None:
            answer.pop("paymentMethod", None)
            answer.pop("manageUrl", None)
        if answer.get("wayBack") is None:
            answer.pop("wayBack", None)
        return answer


class AccountLinkOutput(Declaration):
    """The booking page's answer to a booking on a company's account: the same for every address."""

    status = serializers.CharField(
        help_text="`check_email`: if an active company account allows `bookingData.email`, the booking is "
        "stored and a one-time link to confirm it was mailed there (valid 30 minutes); for any other address "
        "nothing was stored or sent. Every address gets this answer."
    )


class PaymentIntentInput(Declaration):
    amount = JsonIntegerField(min_value=1, max_value=100_000_000, source="amount_cents", help_text="Cents.")


class PaymentIntentOutput(Declaration):
    clientSecret = serializers.CharField()


class SessionDataInput(Declaration):
    session_id = TextField(max_length=255)


class SessionDataOutput(Declaration):
    bookingData = serializers.DictField(
        help_text="The stored booking with reference, status, amountCents, paymentStatus."
    )


class StoredBookingOutput(FromFieldMixin, Declaration):
    """A stored booking as the customer's pages and agents see it (the `bookingData` of 2.6)."""

    from_options = dict(source="origin")

    reference = serializers.CharField()
    status = serializers.CharField()
    paymentStatus = serializers.SerializerMethodField()
    amountCents = serializers.IntegerField(source="amount_cents")
    currency = serializers.CharField()
    priceEur = euros(source="quote.price")
    to = serializers.CharField(source="destination")
    pickupDatetime = LocalDateTimeField(source="pickup_at", allow_null=True)
    estimatedArrival = LocalDateTimeField(source="estimated_arrival", allow_null=True)
    distanceKm = FixedDecimalField(source="distance_km", max_digits=8, decimal_places=1, allow_null=True)
    inZoneA = serializers.BooleanField(source="in_zone_a", allow_null=True)
    vehicleClass = serializers.CharField(source="vehicle_class")
    bookingType = serializers.CharField(source="booking_type")
    durationHours = FixedDecimalField(
        source="duration_hours", max_digits=5, decimal_places=2, allow_null=True
    )
    name = serializers.CharField()
    email = serializers.CharField()
    phone = serializers.CharField()
    locale = serializers.CharField()
    notes = serializers.CharField()
    flightNumber = serializers.CharField(source="flight_number")
    waterChoice = serializers.CharField(source="water_choice")
    tourName = serializers.CharField(source="tour_name")
    flightData = serializers.JSONField(source="flight_data", allow_null=True)
    createdAt = LocalDateTimeField(source="created_at")
    paidAt = LocalDateTimeField(source="paid_at", allow_null=True)

    def get_paymentStatus(self, booking) -> str:
        return payment_status(booking)


def payment_status(booking) -> str:
    if booking.money_received:
        return "paid"
    return {"payment_failed": "failed", "expired": "expired"}.get(booking.status, "unpaid")


# --- the booking's lifecycle: read and cancel (/api/v1/bookings/{reference}, booking.get_booking …) ----


class BookingEmailInput(Declaration):
    email = serializers.EmailField(
        required=False,
        allow_blank=True,
        max_length=254,
        help_text="The customer's e-mail address as given when booking: opens a booking your token did not "
        "make.",
    )


class BookingAccessInput(BookingEmailInput):
    """Which booking: its reference, and (unless your token made it) the customer's e-mail address."""

    reference = TextField(
        max_length=20, help_text="The booking's reference, e.g. CB-7K3Q9X (as answered at checkout)."
    )


class DriverOutput(Declaration):
    name = serializers.CharField()
    phone = serializers.CharField()


class VehicleOutput(Declaration):
    model = serializers.CharField(help_text="The car's make and model, e.g. Mercedes E-Class; may be empty.")
    plate = serializers.CharField(help_text="The number plate, e.g. W-12345A.")


class RideTimeField(LocalDateTimeField):
    """When the ride reached `state` (a RideProgress is the instance), or null."""

    def __init__(self, state: RideState, **kwargs):
        self.state = state
        super().__init__(source="*", allow_null=True, read_only=True, **kwargs)

    def get_attribute(self, progress):
        return progress.at(self.state)


class RideOutput(Declaration):
    """The ride's day as the chauffeur records it on the job page."""

    # written from a booking.ride.RideProgress
    state = serializers.ChoiceField(
        choices=RideState.choices,
        allow_null=True,
        help_text="The chauffeur's last move: accepted → on_the_way → arrived → on_board → completed, or "
        "no_show after arrived (the passenger did not come within the included waiting time); null until "
        "the chauffeur accepts the ride.",
    )
    acceptedAt = RideTimeField(RideState.ACCEPTED, help_text="The chauffeur accepted the ride.")
    onTheWayAt = RideTimeField(RideState.ON_THE_WAY, help_text="The chauffeur set off to the pickup.")
    arrivedAt = RideTimeField(RideState.ARRIVED, help_text="The chauffeur arrived at the pickup.")
    onBoardAt = RideTimeField(RideState.ON_BOARD, help_text="The passenger got in.")
    completedAt = RideTimeField(RideState.COMPLETED, help_text="The ride ended at the destination.")
    noShowAt = RideTimeField(RideState.NO_SHOW, help_text="The chauffeur recorded that nobody came.")


class FlightOutput(Declaration):
    """The flight an airport pickup meets, as the flight-data provider last said."""

    # written from a booking.ride.FollowedFlight
    number = serializers.CharField(help_text="As booked.")
    status = serializers.ChoiceField(
        choices=FlightStatus.choices,
        help_text="scheduled → departed → landed, or cancelled, diverted; unknown: no such flight lands "
        "there that day; not_tracked: the service follows no flights (the pickup stays as booked).",
    )
    scheduledLanding = LocalDateTimeField(source="scheduled_landing", allow_null=True)
    estimatedLanding = LocalDateTimeField(
        source="estimated_landing", allow_null=True, help_text="While in the air or before take-off."
    )
    actualLanding = LocalDateTimeField(source="actual_landing", allow_null=True)
    pickupAsBooked = LocalDateTimeField(
        source="pickup_as_booked",
        allow_null=True,
        help_text="The pickup before the flight moved it; `pickupDatetime` is the pickup now: the landing "
        "plus the time to get out (longer from outside the Schengen area and with luggage).",
    )
    checkedAt = LocalDateTimeField(source="checked_at", allow_null=True, help_text="Last asked.")
    unavailableSince = LocalDateTimeField(
        source="unavailable_since",
        allow_null=True,
        help_text="Set while the flight-data provider does not answer: the pickup stays meanwhile.",
    )


class CancellationTermsOutput(Declaration):
    allowed = serializers.BooleanField(source="terms.allowed", help_text="Whether it can be cancelled now.")
    feeEur = euros(source="fee", help_text="Kept of what was paid when cancelling now.")
    refundEur = euros(source="refund", help_text="Given back when cancelling now.")
    freeUntil = LocalDateTimeField(
        source="terms.free_until", allow_null=True, help_text="Cancelling is free until then."
    )
    refusal = serializers.CharField(
        source="terms.refusal", allow_null=True, help_text="Why it cannot be cancelled, when it cannot."
    )


class BookedStopOutput(Declaration):
    """A stop on the booking's way."""

    # written from its stored record
    address = serializers.CharField()
    waitMinutes = serializers.IntegerField(source="wait_minutes")


class BookedExtraOutput(Declaration):
    """An extra of the booking."""

    # written from its price's line, a pricing.quote.PriceLine
    code = serializers.CharField(source="params.code", help_text="As GET /api/v1/extras names it.")
    name = serializers.CharField(source="params.name_en")
    quantity = serializers.IntegerField(source="params.quantity")
    amountEur = euros(source="amount", help_text="What it adds to the price, all pieces together.")


class ReturnTripOutput(Declaration):
    wayOut = serializers.CharField(source="way_out", help_text="The reference of the ride out.")
    wayBack = serializers.CharField(source="way_back", help_text="The reference of the way back.")


class BookingStateOutput(FromFieldMixin, Declaration):
    """A booking as its customer and the agent that booked it see it."""

    # written from a booking.lifecycle.BookingState
    from_options = dict(source="booking.origin")

    reference = serializers.CharField(source="booking.reference")
    status = serializers.ChoiceField(
        source="booking.status",
        choices=BookingStatus.choices,
        help_text="pending_payment → paid → confirmed (a driver is assigned) → completed; or cancelled, "
        "expired (the checkout page closed unpaid), payment_failed.",
    )
    paymentStatus = serializers.SerializerMethodField(help_text="paid, unpaid, failed or expired.")
    to = serializers.CharField(source="booking.destination")
    pickupDatetime = LocalDateTimeField(source="booking.pickup_at", allow_null=True)
    estimatedArrival = LocalDateTimeField(source="booking.estimated_arrival", allow_null=True)
    vehicleClass = serializers.CharField(source="booking.vehicle_class")
    bookingType = serializers.CharField(source="booking.booking_type")
    priceEur = euros(source="booking.quote.price")
    currency = serializers.CharField(source="booking.currency")
    passengers = serializers.IntegerField(
        source="booking.passengers", allow_null=True, help_text="As booked; null when not said."
    )
    luggage = serializers.IntegerField(
        source="booking.luggage",
        allow_null=True,
        help_text="Pieces of luggage as booked; null when not said.",
    )
    extras = BookedExtraOutput(many=True, source="booking.quote.extra_lines", help_text="Empty when none.")
    stops = BookedStopOutput(
        many=True, source="booking.stops", help_text="On the way, in order; empty when none."
    )
    name = serializers.CharField(source="booking.name")
    email = serializers.CharField(source="booking.email")
    phone = serializers.CharField(source="booking.phone")
    driver = DriverOutput(allow_null=True, help_text="The chauffeur, once the booking is confirmed.")
    vehicle = VehicleOutput(
        allow_null=True, help_text="The car the chauffeur comes in, once the booking is confirmed."
    )
    ride = RideOutput(
        help_text="The ride's day: the chauffeur's moves and when each was made (times null until reached; "
        "a move staff undid is left out)."
    )
    flight = FlightOutput(
        allow_null=True,
        help_text="The flight an airport pickup meets, followed from a day before: a late or early landing "
        "moves `pickupDatetime` (webhook booking.pickup_moved). Null for a ride that meets no flight.",
    )
    chauffeurArrival = LocalDateTimeField(
        source="chauffeur_arrival",
        allow_null=True,
        help_text="While the chauffeur is on the way and shares their phone's position with the traveller: "
        "when they are expected at the pickup (refreshed as they drive). Null otherwise.",
    )
    refundedEur = euros(source="refunded", help_text="Refunded so far.")
    cancelledAt = LocalDateTimeField(source="booking.cancelled_at", allow_null=True)
    cancellationFeeEur = euros(
        source="cancellation_fee",
        allow_null=True,
        help_text="Kept at the cancellation; null unless cancelled.",
    )
    cancellation = CancellationTermsOutput(source="*", help_text="What cancelling now would cost.")
    manageUrl = serializers.URLField(
        source="manage_url", help_text="The customer's own page of the booking: pass it on to the traveller."
    )
    returnTrip = ReturnTripOutput(
        source="return_trip",
        required=False,
        help_text="Only on a return trip's rides: the two rides' references (each ride is read, changed and "
        "cancelled on its own).",
    )

    def get_paymentStatus(self, state) -> str:
        return payment_status(state.booking)

    def to_representation(self, state):
        answer = super().to_representation(state)
        if answer.get("returnTrip") is None:
            answer.pop("returnTrip", None)
        return answer


# --- a token's bookings (GET /api/v1/bookings, booking.list_bookings) ----------------------------------


class BookingListInput(Declaration):
    """Which of your bookings: today's and later ones (default), earlier ones, or all; a page at a time."""

    when = serializers.ChoiceField(
        choices=[(when, when) for when in listing.WHEN],
        default=listing.UPCOMING,
        help_text="`upcoming` (default): rides from today (Vienna) on, soonest first, then any without a "
        "pickup time; `past`: rides before today, latest first; `all`: every one, latest pickup first.",
    )
    limit = PlainIntegerField(
        min_value=1,
        max_value=listing.MAX_LIMIT,
        default=listing.DEFAULT_LIMIT,
        help_text=f"Bookings per page, 1–{listing.MAX_LIMIT} (default {listing.DEFAULT_LIMIT}).",
    )
    cursor = serializers.RegexField(
        listing.CURSOR_PATTERN,
        required=False,
        max_length=40,
        help_text="The `nextCursor` of the previous page, with the same `when`; leave it out for the first.",
        trim_whitespace=False,  # a cursor is passed back as received, or it is not one
    )

    def validate_cursor(self, cursor: str) -> str:
        if not re.fullmatch(listing.CURSOR_PATTERN, cursor):  # `$` alone lets a final line break through
            raise serializers.ValidationError("Not a cursor: pass back the nextCursor of the previous page.")
        return cursor


class BookingListOutput(Declaration):
    """A page of bookings."""

    # written from a booking.listing.BookingPage
    bookings = BookingStateOutput(
        many=True, help_text="Each as GET /api/v1/bookings/{reference} answers it, in the page's order."
    )
    nextCursor = serializers.CharField(
        source="next_cursor",
        allow_null=True,
        help_text="Pass it as `cursor` for the next page; null on the last page.",
    )


class RideQuoteInput(V1DistanceInput, PriceInput):
    """The route's fields and the ride's kind, from the distance and price declarations; the class, the
    distance and the Zone A flag are the operation's to find."""

    vehicleClass = distanceKm = inZoneA = waitMinutes = None  # type: ignore[assignment]  # None drops the inherited field (DRF)

    def validate(self, attrs: dict) -> dict:
        stops, waits = attrs.get("stops", ()), attrs.get("stop_waits", ())
        if waits and len(waits) != len(stops):
            raise serializers.ValidationError({"stopWaits": ["Give one wait per stop, in the stops' order."]})
        return attrs


class ClassQuoteOutput(Declaration):
    vehicleClass = serializers.CharField(source="vehicle_class")
    price = PriceOutput(
        source="quote", allow_null=True, help_text="Null when the class cannot take the ride."
    )
    problem = serializers.CharField(
        allow_null=True,
        help_text="Why the class cannot take the ride: `unknown_tour` (it does not run the tour), "
        "`vehicle_too_small` (too few seats or too little room for the luggage), `unknown_extra` (it does "
        "not offer an extra asked for) or `too_many_extras`.",
    )


class RideQuoteOutput(Declaration):
    route = DistanceOutput()
    classes = ClassQuoteOutput(many=True, help_text="Every class offered, in the booking page's order.")
    pickupIsAirport = serializers.BooleanField(
        source="pickup_is_airport",
        help_text="Whether the pickup is an airport: only then does the page ask for the flight number.",
    )
