"""What a booking's change through the API and MCP reads and answers (dispatch/change_quotes.py)."""

from rest_framework import serializers

from apikit.declarations import Declaration
from apikit.fields import FixedDecimalField, FromFieldMixin, JsonIntegerField, LocalDateTimeField, TextField
from booking.serializers import (
    BookedStopOutput,
    BookingAccessInput,
    BookingEmailInput,
    BookingStateOutput,
    StopInput,
    StopsInput,
)
from dispatch import change_quotes
from payments import booking_state
from pricing.models import VehicleClass
from pricing.money import from_cents
from pricing.quote import MAX_STOPS
from pricing.serializers import ExtrasField, PriceOutput, euros, luggage_field, passengers_field

SETTLEMENTS = {
    "none": "nothing to pay or refund",
    "refund": "`settledEur` goes back to the payment it came from",
    "pay": "`settledEur` is paid through the link the change answers with (`paymentUrl`)",
    "invoiced": "the company's collective invoice bills the new price",
}
SETTLEMENT_HELP = "What happens to the difference: " + "; ".join(
    f"`{code}`: {words}" for code, words in SETTLEMENTS.items()
)


class ChangeWantedInput(FromFieldMixin, BookingEmailInput, StopsInput):
    """The change wanted: a new pickup time, class, pickup address, destination, stops, passengers, luggage
    or extras, any of them together; what is left out stays."""

    from_options = dict(
        max_length=500,
        source="origin",
        required=False,
        help_text="The new pickup address or place name; the ride is routed and priced again (a ride by "
        "distance only: an hourly hire's or a tour's addresses are staff's, 409 `not_changeable`).",
    )
    to = TextField(
        max_length=500,
        source="destination",
        required=False,
        help_text="The new destination address or place name; routed and priced again as `from`.",
    )
    stops = serializers.ListField(
        child=StopInput(),
        required=False,
        max_length=MAX_STOPS,
        help_text="The stops on the way as they become, in order, all of them (`[]`: none); the ride is "
        "routed and priced again as with `from` (400 `too_many_stops` where the class allows fewer).",
    )
    passengers = passengers_field(JsonIntegerField)
    luggage = luggage_field(JsonIntegerField)
    extras = ExtrasField(
        help_text="The extras as they become, all of them (`[]`: none), as the checkout takes them "
        '(`["child-seat:2", "name-sign"]`; GET /api/v1/extras lists them); priced at today\'s prices. A car '
        "assigned must carry them (409 `not_changeable`); a ride whose price was agreed with staff keeps "
        "its extras (409 `not_changeable`)."
    )

    pickupDatetime = LocalDateTimeField(
        source="pickup",
        required=False,
        help_text="The new pickup, ISO 8601 (without offset: Vienna local time); within the lead time "
        "(400 `lead_time`).",
    )
    vehicleClass = serializers.ChoiceField(
        choices=VehicleClass.Code.choices,
        source="vehicle_class",
        required=False,
        help_text="The new class; not while a car is assigned (409 `not_changeable`).",
    )


class ChangeToMakeInput(BookingEmailInput):
    changeQuoteId = TextField(
        source="quote_id",
        max_length=40,
        help_text="The `id` of a change quote of this booking, unused, "
        "within its `expiresAt` (409 `stale_change_quote` otherwise).",
    )


class AgentChangeWantedInput(ChangeWantedInput, BookingAccessInput):
    """Which booking (its reference, and unless your token made it the customer's e-mail) and the change."""


class AgentChangeToMakeInput(ChangeToMakeInput, BookingAccessInput):
    """Which booking and the change quote to make."""


class ChangedExtraOutput(Declaration):
    code = serializers.CharField(help_text="As GET /api/v1/extras names it.")
    quantity = serializers.IntegerField()


class ChangeQuoteOutput(FromFieldMixin, Declaration):
    from_options = dict(source="ride.origin", help_text="The pickup address after the change.")

    id = serializers.CharField(help_text="Send it as `changeQuoteId` to make the change; single use.")
    expiresAt = LocalDateTimeField(source="expires_at", help_text="The quote holds until then.")
    reference = serializers.CharField(source="booking.reference")
    pickupDatetime = LocalDateTimeField(source="pickup", help_text="The pickup after the change.")
    vehicleClass = serializers.CharField(source="vehicle_class", help_text="The class after the change.")
    to = serializers.CharField(source="ride.destination", help_text="The destination after the change.")
    distanceKm = FixedDecimalField(
        source="ride.distance_km",
        max_digits=8,
        decimal_places=1,
        allow_null=True,
        help_text="The route's length after the change, in km.",
    )
    passengers = serializers.IntegerField(
        source="ride.passengers", allow_null=True, help_text="Passengers after the change (null: not said)."
    )
    luggage = serializers.IntegerField(
        source="ride.luggage",
        allow_null=True,
        help_text="Pieces of luggage after the change (null: not said).",
    )
    stops = BookedStopOutput(
        many=True, source="ride.stops", help_text="The stops after the change, in order."
    )
    extras = ChangedExtraOutput(
        many=True, source="ride.extras", help_text="The extras after the change; `price` has their lines."
    )
    price = PriceOutput(source="quote", help_text="The ride's price after the change, line by line.")
    previousPriceEur = euros(source="previous", help_text="The booking's price now.")
    differenceEur = euros(source="difference", help_text="The new price less the old: above 0, more to pay.")
    settlement = serializers.ChoiceField(choices=list(SETTLEMENTS), help_text=SETTLEMENT_HELP)
    settledEur = euros(source="settled", help_text="What is refunded or to pay (0 for none).")


class ChangeMadeOutput(Declaration):
    booking = BookingStateOutput(help_text="The booking as it is now, changed.")
    differenceEur = euros(source="difference", help_text="The new price less the old.")
    settlement = serializers.ChoiceField(choices=list(SETTLEMENTS), help_text=SETTLEMENT_HELP)
    settledEur = euros(source="settled")
    paymentUrl = serializers.URLField(
        source="payment_url",
        allow_null=True,
        help_text="The payment page of the difference when `settlement` is `pay` (also e-mailed to the "
        "customer); null otherwise.",
    )


CHANGED = ("pickup", "vehicle_class", "origin", "destination", "stops", "passengers", "luggage", "extras")


def change_wanted(validated: dict) -> dict:
    """The keyword arguments of change_quotes.quote_change: what the change names, None for the rest."""
    return {name: validated.get(name) for name in CHANGED}


def quote_shown(quoted: change_quotes.Quoted) -> dict:
    """What ChangeQuoteOutput writes of a priced change."""
    return {
        "id": quoted.id,
        "expires_at": quoted.expires_at,
        "booking": quoted.booking,
        "pickup": quoted.pickup,
        "vehicle_class": quoted.vehicle_class,
        "ride": quoted.ride,
        "quote": quoted.quote,
        "previous": from_cents(quoted.previous_cents),
        "difference": from_cents(quoted.difference_cents),
        "settlement": quoted.settlement,
        "settled": from_cents(quoted.settled_cents),
    }


def change_shown(made: change_quotes.Made) -> dict:
    """What ChangeMadeOutput writes of a change made."""
    return {
        "booking": booking_state.state_of(made.booking),
        "difference": from_cents(made.difference_cents),
        "settlement": made.settlement,
        "settled": from_cents(made.settled_cents),
        "payment_url": made.payment_url,
    }
