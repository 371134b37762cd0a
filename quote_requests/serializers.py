"""The one declaration of a quote request's input and answer, shared by /api/v1, OpenAPI, the MCP tools and
the booking page."""

from django.conf import settings
from rest_framework import serializers

from apikit.declarations import Declaration
from apikit.fields import FromFieldMixin, JsonIntegerField, LocalDateTimeField, TextField
from booking.ride_quotes import CLASS_PROBLEMS
from booking.serializers import optional_destination
from pricing.models import VehicleClass
from pricing.serializers import euros, luggage_field, passengers_field
from quote_requests.models import MAX_DETAILS, QuoteRequestStatus
from quote_requests.services import QuoteAsked
from sitekit import phones

REASONS = CLASS_PROBLEMS  # why no class took the trip, as the page's quote says


class QuoteRequestInput(FromFieldMixin, Declaration):
    """A trip the tariff cannot price, for staff to quote: where and when, who and what rides, what is needed,
    and how to reach the traveller (the offer goes to `email`)."""

    from_options = dict(max_length=500, source="origin", help_text="Pickup address or place name.")
    to = optional_destination(
        "Destination; empty for a hire as directed or a roundtrip described in `details`."
    )
    pickupDatetime = LocalDateTimeField(
        source="pickup",
        help_text="When the trip starts: ahead of now, and no further ahead than bookings are taken "
        "(400 naming `pickupDatetime` otherwise).",
    )
    passengers = passengers_field(JsonIntegerField)
    luggage = luggage_field(JsonIntegerField)
    vehicleClass = serializers.ChoiceField(
        choices=VehicleClass.Code.choices,
        required=False,
        allow_blank=True,
        default="",
        source="vehicle_class",
        help_text="The class wished for, if any.",
    )
    details = TextField(
        max_length=MAX_DETAILS,
        required=False,
        allow_blank=True,
        default="",
        help_text="What is needed, in the traveller's words: several cars, several days and stops, the way "
        "back, a larger vehicle.",
    )
    name = TextField(max_length=200, help_text="Who asks.")
    email = serializers.EmailField(
        max_length=254,
        required=False,
        default="",
        help_text="Where the offer goes; required unless the token acts for a traveller (then theirs).",
    )
    phone = TextField(
        max_length=phones.MAX_LENGTH,
        required=False,
        allow_blank=True,
        default="",
        help_text="A number staff can call back (E.164, or as dialled in Austria).",
    )
    locale = serializers.ChoiceField(choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE)

    def asked(self) -> QuoteAsked:
        return QuoteAsked(**self.validated_data)


class PageQuoteRequestInput(QuoteRequestInput):
    """The booking page's: with the reason the page found no vehicle for the trip."""

    email = serializers.EmailField(max_length=254, help_text="Where the offer goes.")
    reason = serializers.ChoiceField(
        choices=[(code, code) for code in REASONS],
        required=False,
        allow_blank=True,
        default="",
        help_text="The quote's problem that led to the request, e.g. vehicle_too_small.",
    )


class OfferLineOutput(Declaration):
    label = serializers.CharField(  # type: ignore[assignment]  # a declared field, not Field.label
        help_text="As staff wrote it, e.g. 'Business van Vienna – Salzburg, with waiting'."
    )
    amountEur = euros(source="amount", help_text="Gross, VAT included.")


class OfferOutput(Declaration):
    """Staff's offer: its lines, the class it is driven in, until when it holds, and the link that books it
    and pays it (the traveller got it by e-mail)."""

    vehicleClass = serializers.CharField(source="vehicle_class")
    lines = OfferLineOutput(many=True)
    priceEur = euros(source="price", help_text="The lines' sum, VAT included.")
    validUntil = serializers.DateField(source="valid_until", help_text="The last day it can be booked.")
    url = serializers.CharField(
        help_text="The offer's page: the traveller books and pays there (the payment page opens then)."
    )
    bookingReference = serializers.CharField(
        source="booking_reference",
        allow_null=True,
        help_text="The booking made when the traveller booked it (GET /api/v1/bookings/{reference}); null "
        "until then.",
    )


class QuoteRequestOutput(FromFieldMixin, Declaration):
    """A quote request as the traveller or agent that made it sees it."""

    from_options = dict(source="origin")

    reference = serializers.CharField(help_text="QR- and six characters, e.g. QR-7K3Q9X.")
    status = serializers.ChoiceField(
        choices=QuoteRequestStatus.choices,
        help_text="open (staff have not answered yet), answered (staff e-mailed an offer or a reply), "
        "closed.",
    )
    to = serializers.CharField(source="destination")
    pickupDatetime = LocalDateTimeField(source="pickup_at")
    passengers = serializers.IntegerField(allow_null=True)
    luggage = serializers.IntegerField(allow_null=True)
    vehicleClass = serializers.CharField(source="vehicle_class", help_text="Empty when none was wished for.")
    details = serializers.CharField()
    name = serializers.CharField()
    email = serializers.CharField()
    phone = serializers.CharField()
    askedAt = LocalDateTimeField(source="created_at")
    offer = OfferOutput(allow_null=True, help_text="Staff's offer, once sent (status answered); null before.")


class QuoteRequestAccessInput(Declaration):
    reference = TextField(max_length=12, help_text="The request's reference, e.g. QR-7K3Q9X.")
