"""The one declaration of the price operation's input and output, shared by /api/v1, OpenAPI and MCP."""

from decimal import Decimal

from rest_framework import serializers

from apikit.declarations import Declaration
from apikit.fields import FixedDecimalField, PlainDecimalField, PlainIntegerField
from pricing.models import VehicleClass
from pricing.quote import (
    HOURLY_BLOCK,
    MAX_DISTANCE_KM,
    MAX_HOURLY_HOURS,
    MAX_WAIT_MINUTES,
    MIN_HOURLY_HOURS,
    WAITING_BLOCK_MINUTES,
    BookingType,
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
    tourSlug = serializers.CharField(
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


def euros(**kwargs) -> FixedDecimalField:
    return FixedDecimalField(max_digits=12, decimal_places=2, **kwargs)


class PriceLineOutput(Declaration):
    code = serializers.CharField(
        help_text="base_fare, distance, minimum_fare, outside_zone_a, hourly, distance_minimum (an hourly "
        "hire costs at least the same ride by distance), tour, waiting or rounding"
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
        many=True, source="priced_lines", help_text="They sum to priceEur; the last one is the rounding."
    )
