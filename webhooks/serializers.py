"""The webhook endpoints' door declarations (their inputs and answers) and a delivery's body as the
OpenAPI document's `webhooks` describe it."""

from rest_framework import serializers

from apikit.declarations import Declaration
from apikit.fields import LocalDateTimeField, TextField
from webhooks.events import EVENT_TYPES

EVENT_TYPE_NAMES = list(EVENT_TYPES)


class EndpointInput(Declaration):
    url = serializers.CharField(
        max_length=2000,
        trim_whitespace=False,
        help_text="Where each event is POSTed: https, on a public address, at most 2000 characters.",
    )
    eventTypes = serializers.ListField(
        source="event_types",
        child=serializers.ChoiceField(choices=EVENT_TYPE_NAMES),
        required=False,
        default=list,
        max_length=len(EVENT_TYPE_NAMES),
        help_text="The events it receives; absent or empty: every event.",
    )
    description = TextField(
        max_length=200, required=False, default="", allow_blank=True, help_text="Your own note on it."
    )

    def validate_eventTypes(self, event_types: list[str]) -> list[str]:
        return list(dict.fromkeys(event_types))  # each once, in the order given


class NoInput(Declaration):
    """Reads and removals take nothing but the path."""


class EndpointOutput(Declaration):
    id = serializers.CharField(source="public_id", help_text="The endpoint's id, e.g. ep_3f9a….")
    url = serializers.CharField()
    eventTypes = serializers.ListField(
        source="event_types",
        child=serializers.ChoiceField(choices=EVENT_TYPE_NAMES),
        help_text="The events it receives; empty: every event.",
    )
    description = serializers.CharField()
    createdAt = LocalDateTimeField(source="created_at")
    pausedAt = LocalDateTimeField(
        source="paused_at",
        allow_null=True,
        help_text="Set when deliveries failed until every retry was spent; its events wait until it is "
        "resumed (POST …/resume). Null while it receives.",
    )
    pauseReason = serializers.CharField(source="pause_reason", help_text="Why it was paused; empty if not.")


class EndpointWithSecretOutput(EndpointOutput):
    secret = serializers.CharField(
        help_text="The signing secret (`whsec_…`): verify each delivery's `webhook-signature` with it, as "
        "the Standard Webhooks libraries do."
    )


class EndpointListOutput(Declaration):
    endpoints = EndpointOutput(many=True, help_text="Your endpoints, the oldest first (without secrets).")


class DeliveryListInput(Declaration):
    state = serializers.ChoiceField(
        choices=["pending", "delivered", "failed"],
        required=False,
        help_text="Only deliveries in this state; absent: every one.",
    )


class DeliveryOutput(Declaration):
    """One event's delivery to the endpoint."""

    # written from a webhooks.models.Delivery
    id = serializers.CharField(source="event.public_id", help_text="The event's id: its `webhook-id` header.")
    type = serializers.CharField(source="event.type")
    reference = serializers.CharField(source="event.subject", help_text="The booking it tells of.")
    createdAt = LocalDateTimeField(source="event.created_at", help_text="When it happened.")
    state = serializers.ChoiceField(
        choices=["pending", "delivered", "failed"],
        help_text="pending: waiting for its (next) attempt; delivered: answered 2xx; failed: every retry "
        "spent (the endpoint is paused: resume it to send it again).",
    )
    attempts = serializers.IntegerField()
    lastAttemptAt = LocalDateTimeField(source="last_attempt_at", allow_null=True)
    lastStatus = serializers.IntegerField(
        source="last_status", allow_null=True, help_text="The HTTP status your endpoint answered last."
    )
    lastAnswer = serializers.CharField(
        source="last_answer", help_text="The start of your endpoint's last answer, or why it was not reached."
    )
    nextAttemptAt = LocalDateTimeField(source="next_attempt_at", allow_null=True)
    deliveredAt = LocalDateTimeField(source="delivered_at", allow_null=True)


class DeliveryListOutput(Declaration):
    deliveries = DeliveryOutput(many=True, help_text="The newest first, at most 100.")


class DeliveryData(serializers.Serializer):
    reference = serializers.CharField(help_text="The booking's reference, e.g. CB-7K3Q9X.")
    status = serializers.CharField(help_text="The booking's state after the event.")
    pickupDatetime = serializers.DateTimeField(allow_null=True, help_text="The pickup, Vienna time.")
    vehicleClass = serializers.CharField()
    rideState = serializers.CharField(required=False, help_text="ride.* events: the ride's state now.")
    undoneRideState = serializers.CharField(
        required=False, help_text="ride.step_undone: the state taken back."
    )
    chauffeur = serializers.DictField(
        required=False,
        help_text="chauffeur.assigned: the chauffeur's `name`, the car (`vehicle`) and `plate`.",
    )
    changes = serializers.DictField(
        required=False,
        help_text="booking.changed: each changed value (`pickupDatetime`, `from`, `to`, `stops`, "
        "`passengers`, `luggage`, `extras`, `vehicleClass`, `price`) with its `before` and `after`.",
    )
    currency = serializers.CharField(required=False, help_text="booking.changed: the prices' currency.")
    previousPickupDatetime = serializers.DateTimeField(
        required=False, help_text="booking.pickup_moved: the pickup before."
    )
    flight = serializers.DictField(
        required=False,
        help_text="booking.pickup_moved when the flight the pickup meets moved it: its `number`, `status` "
        "and `landing` (ISO 8601, estimated or actual).",
    )
    refund = serializers.DictField(
        required=False, help_text="booking.refunded: the `amount` (a decimal string) and its `currency`."
    )


class DeliveryBody(serializers.Serializer):
    type = serializers.ChoiceField(choices=EVENT_TYPE_NAMES, help_text="The event.")
    timestamp = serializers.DateTimeField(help_text="When it happened (UTC).")
    data = DeliveryData()  # type: ignore[assignment]  # a nested serializer, as DRF declares them
