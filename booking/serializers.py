"""Input and output declarations of the availability operation (/api/v1, OpenAPI, MCP)."""

from rest_framework import serializers

from booking.availability import Reason
from chauffeur.api.fields import LocalDateTimeField


class AvailabilityInput(serializers.Serializer):
    pickupDatetime = LocalDateTimeField(
        source="pickup", help_text="Wanted pickup, ISO 8601; without offset it is Vienna local time."
    )
    bookingDatetime = LocalDateTimeField(
        source="booked_at", required=False, help_text="When the booking is placed; default now."
    )


class AvailabilityOutput(serializers.Serializer):
    available = serializers.BooleanField()
    pickupDatetime = LocalDateTimeField(source="pickup")
    bookingDatetime = LocalDateTimeField(source="booked_at")
    earliestPickup = LocalDateTimeField(source="earliest_pickup")
    reason = serializers.ChoiceField(
        choices=[(reason.value, reason.value) for reason in Reason],
        allow_null=True,
        help_text="Why the pickup is not available; null when it is.",
    )
