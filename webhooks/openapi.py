"""The deliveries in the OpenAPI document (3.1 `webhooks`): what a receiver gets and should answer."""

from django.utils import translation
from drf_spectacular.utils import OpenApiResponse, OpenApiWebhook, extend_schema

from webhooks.events import EVENT_TYPES
from webhooks.serializers import DeliveryBody


def _events() -> str:
    with translation.override("en"):
        return "\n".join(f"- `{name}`: {meaning}" for name, meaning in EVENT_TYPES.items())


BOOKING_EVENT = OpenApiWebhook(
    name="bookingEvent",
    decorator=extend_schema(
        operation_id="bookingEvent",
        summary="An event of a booking, POSTed to a webhook endpoint",
        description=(
            "Sent to each endpoint that hears of the booking (POST /api/v1/webhook-endpoints), signed per "
            "Standard Webhooks; one booking's events in their order, each once, retried after 5 s, 5 min, "
            "30 min, 2 h, 5 h, 10 h and 10 h until answered 2xx. Its headers: `webhook-id` (the event's "
            "id, msg_…, the same on every retry and replay), `webhook-timestamp` (when this attempt was "
            "signed, in seconds since 1970) and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of "
            "`id.timestamp.body` under the endpoint's secret). The events:\n\n" + _events()
        ),
        request=DeliveryBody,
        responses={
            204: OpenApiResponse(description="Received (any 2xx counts)."),
            400: OpenApiResponse(description="Refused (any other answer is tried again later)."),
        },
    ),
)
