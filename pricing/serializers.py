"""The one declaration of the price operation's input and output, shared by /api/v1, OpenAPI and MCP."""

from decimal import Decimal

from rest_framework import serializers

from apikit.declarations import Declaration
from apikit.fields import FixedDecimalField, PlainDecimalField, PlainIntegerField, QueryListField, TextField
from pricing.models import VehicleClass
from pricing.quote import (
    HOURLY_BLOCK,
    MAX_DISTANCE_KM,
    MAX_EXTRA_QUANTITY,
    MAX_EXTRAS,
    MAX_HOURLY_HOURS,
    MAX_LUGGAGE,
    MAX_PASSENGERS,
    MAX_STOP_WAIT_MINUTES,
    MAX_STOPS,
    MAX_WAIT_MINUTES,
    MIN_HOURLY_HOURS,
    WAITING_BLOCK_MINUTES,
    BookingType,
    ExtraChoice,
)

EXTRA_CODE = r"[a-z0-9][a-z0-9_-]{0,49}"


class ExtrasField(QueryListField):
    """Extras as `code` or `code:quantity` (`["child-seat:2", "name-sign"]`; in a query comma-separated,
    `extras=child-seat:2,name-sign`): one list shape for query strings and JSON alike."""

    child = serializers.RegexField(
        rf"^{EXTRA_CODE}(:[1-{MAX_EXTRA_QUANTITY}])?\Z",
        max_length=52,
        error_messages={"invalid": "Expected an extra's code, or code:quantity (e.g. child-seat:2)."},
    )

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", MAX_EXTRAS)
        kwargs.setdefault(
            "help_text",
            f"Extras (GET /api/v1/extras lists them with their prices): each as its code, or code:quantity "
            f'for several pieces (1–{MAX_EXTRA_QUANTITY}), e.g. ["child-seat:2", "name-sign"] (in a query '
            f"string comma-separated: child-seat:2,name-sign); a code named twice counts its pieces "
            f"together; at most {MAX_EXTRAS} items.",
        )
        super().__init__(**kwargs)

    def to_internal_value(self, data) -> tuple[ExtraChoice, ...]:  # type: ignore[override]  # a tuple of choices, not a list
        choices = []
        for item in super().to_internal_value(data):
            code, _, quantity = item.partition(":")
            choices.append(ExtraChoice(code, int(quantity or 1)))
        return tuple(choices)  # a code named twice counts twice (the engine adds them up)


class StopWaitsField(QueryListField):
    """The wait at each stop on the way, in minutes (`[15, 0]`; in a query `15,0`)."""

    child = PlainIntegerField(min_value=0, max_value=MAX_STOP_WAIT_MINUTES)

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", MAX_STOPS)
        super().__init__(**kwargs)

    def to_internal_value(self, data) -> tuple[int, ...]:  # type: ignore[override]  # a tuple, not a list
        return tuple(super().to_internal_value(data))


def passengers_field(kind: type[serializers.IntegerField] = PlainIntegerField) -> serializers.IntegerField:
    """`kind`: PlainIntegerField in a query, JsonIntegerField in a JSON body (where 3.0 is the integer 3)."""
    return kind(
        min_value=1,
        max_value=MAX_PASSENGERS,
        required=False,
        help_text="Passengers, children included; checked against the class's seats (400 `vehicle_too_small` "
        "names the classes that fit). Leave it out to skip the check.",
    )


def luggage_field(kind: type[serializers.IntegerField] = PlainIntegerField) -> serializers.IntegerField:
    return kind(
        min_value=0,
        max_value=MAX_LUGGAGE,
        required=False,
        help_text="Pieces of luggage (suitcases); checked against what the class carries (400 "
        "`vehicle_too_small`). Leave it out to skip the check.",
    )


class PriceInput(Declaration):
    vehicleClass = serializers.ChoiceField(
        choices=VehicleClass.Code.choices, source="vehicle_class", help_text="Vehicle class to price."
    )
    distanceKm = PlainDecimalField(
        min_value=Decimal("0"),
        max_value=MAX_DISTANCE_KM,
        source="distance_km",
        help_text="Road distance in km (rounded to 0.1 km).",
    )
    bookingType = serializers.ChoiceField(
        choices=[(item.value, item.value) for item in BookingType],
        default=BookingType.DISTANCE.value,
        source="booking_type",
        help_text="`distance` (default) or `hourly`.",
    )
    durationHours = PlainDecimalField(
        min_value=MIN_HOURLY_HOURS,
        max_value=MAX_HOURLY_HOURS,
        required=False,
        source="duration_hours",
        help_text=f"Hours of an hourly booking ({MIN_HOURLY_HOURS:g}–{MAX_HOURLY_HOURS:g}), billed per "
        f"started {HOURLY_BLOCK * 60:g} minutes.",
    )
    tourSlug = TextField(
        required=False,
        allow_blank=True,
        max_length=100,
        source="tour_slug",
        help_text="A tour's fixed price replaces the distance charge; empty means no tour.",
    )
    waitMinutes = PlainIntegerField(
        min_value=0,
        max_value=MAX_WAIT_MINUTES,
        default=0,
        source="wait_minutes",
        help_text=f"Waiting time, billed per started {WAITING_BLOCK_MINUTES} minutes.",
    )
    inZoneA = serializers.BooleanField(
        default=True,
        source="in_zone_a",
        help_text="Whether the pickup or the drop-off is in Zone A (the `inZoneA` of /api/v1/distance).",
    )
    passengers = passengers_field()
    luggage = luggage_field()
    extras = ExtrasField()
    stopWaits = StopWaitsField(
        source="stop_waits",
        help_text=f"One number per stop on the way, in order: the minutes the car waits there (0: none), "
        f"e.g. 15,0 for two stops; each stop adds the tariff's stop fee and its wait per started "
        f"{WAITING_BLOCK_MINUTES} minutes. Take distanceKm from /api/v1/distance with the same `stops`. At "
        f"most {MAX_STOPS}, fewer where the class allows fewer (400 `too_many_stops`).",
    )


def euros(**kwargs) -> FixedDecimalField:
    return FixedDecimalField(max_digits=12, decimal_places=2, **kwargs)


class PriceLineOutput(Declaration):
    code = serializers.CharField(
        help_text="base_fare, distance, minimum_fare, outside_zone_a, hourly, distance_minimum (an hourly "
        "hire costs at least the same ride by distance), tour, stop (one per stop on the way, in order: the "
        "stop fee and the wait there; nothing on a hire by the hour or a tour), waiting, rounding, or extra "
        "(one per extra asked for, after the rounding: its label names it and the quantity)"
    )
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    amountEur = euros(source="amount")


class PriceOutput(Declaration):
    priceEur = euros(source="price", help_text="Gross price in EUR including VAT.")
    currency = serializers.CharField()
    netEur = euros(source="net")
    vatEur = euros(source="vat")
    vatRate = serializers.FloatField(source="vat_rate", help_text="0.1 = 10 %.")
    vehicleClass = serializers.CharField(source="vehicle_class")
    bookingType = serializers.CharField(source="booking_type")
    lines = PriceLineOutput(
        many=True,
        source="priced_lines",
        help_text="They sum to priceEur; the rounding comes after the ride's lines, the extras after it.",
    )


class ExtrasInput(Declaration):
    """No parameters: every extra offered."""


class ExtraNamesOutput(Declaration):
    en = serializers.CharField(source="name_en")
    de = serializers.CharField(source="name_de")


class ExtraOutput(Declaration):
    """An extra the operator offers."""

    # written from a pricing.services.ExtraListed
    code = serializers.CharField(source="offer.code", help_text="What `extras` names it by, e.g. child-seat.")
    names = ExtraNamesOutput(source="offer", help_text="Its name in English and German.")
    priceEur = euros(source="offer.price", help_text="Gross EUR, VAT included, per piece or per booking.")
    per = serializers.SerializerMethodField(help_text="`piece` (times the quantity) or `booking` (once).")
    childSeat = serializers.SerializerMethodField(
        help_text="The age group of a child seat (`infant_carrier`, `child_seat`, `booster`); null for "
        "anything else. A ride has no more child seats than passengers."
    )
    maxima = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="How many one ride may have, by vehicle class; a class not named does not offer it.",
    )

    def get_per(self, listed) -> str:
        return "piece" if listed.offer.per_piece else "booking"

    def get_childSeat(self, listed) -> str | None:
        return listed.offer.child_seat or None


class ExtrasOutput(Declaration):
    extras = ExtraOutput(many=True, help_text="In the operator's order.")
