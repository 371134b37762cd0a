"""/api/v1's door to a token's webhook endpoints (webhooks/subscriptions.py): each hears of the bookings its
token opens. Staff add endpoints that hear of every booking in the admin."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request

from access.authentication import BearerTokenAuthentication, requires_scope
from access.models import ApiToken, Scope
from apikit.declarations import Declaration
from apikit.operations import Operation
from apikit.renderers import Answer
from webhooks import subscriptions
from webhooks.serializers import (
    DeliveryListInput,
    DeliveryListOutput,
    EndpointInput,
    EndpointListOutput,
    EndpointOutput,
    EndpointWithSecretOutput,
    NoInput,
)

ENDPOINT_PATH = OpenApiParameter(
    "endpoint_id", str, OpenApiParameter.PATH, description="The endpoint's id, as added (ep_…)."
)
WHOSE = (
    "An endpoint receives the events of the bookings its token opens: a traveller's token those of its "
    "traveller, an OAuth token those its grant booked, any other token those it booked (docs: Webhooks)."
)


def webhook_schema(*, problems: tuple[str, ...] = (), **kwargs):
    extensions = {"x-error-statuses": list(problems)} if problems else None
    return extend_schema(
        tags=["webhooks"],
        auth=[{"bearerAuth": [Scope.READ.value]}],  # type: ignore[list-item]  # security requirements, not names
        extensions=extensions,
        **kwargs,
    )


class TokenOperation(Operation):
    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [requires_scope(Scope.READ.value)]
    input_serializer: type[Declaration] = NoInput

    @staticmethod
    def token(request: Request) -> ApiToken:
        assert isinstance(request.auth, ApiToken)  # noqa: S101  (the permission let only a token in)
        return request.auth


class EndpointsApi(TokenOperation):
    input_serializer = EndpointInput

    @webhook_schema(
        operation_id="listWebhookEndpoints",
        summary="Your webhook endpoints",
        description=f"{WHOSE} Their signing secrets are in each endpoint's own answer.",
        responses={200: OpenApiResponse(EndpointListOutput, description="Your endpoints.")},
    )
    def get(self, request: Request) -> Answer:
        return Answer(EndpointListOutput.write({"endpoints": list(subscriptions.of(self.token(request)))}))

    @webhook_schema(
        operation_id="addWebhookEndpoint",
        summary="Receive events of your bookings at an HTTPS endpoint",
        description=(
            f"{WHOSE} Each delivery is a POST signed per Standard Webhooks with the answer's `secret`, "
            "retried for about a day and a half while the endpoint does not answer 2xx, one booking's "
            "events in their order. The URL must be https on a public address (400 otherwise); at most 10 "
            "endpoints per token."
        ),
        request=EndpointInput,
        responses={
            201: OpenApiResponse(EndpointWithSecretOutput, description="The endpoint, with its secret.")
        },
    )
    def post(self, request: Request) -> Answer:
        wanted = self.validated(request).validated_data
        endpoint = subscriptions.add(
            self.token(request),
            url=wanted["url"],
            event_types=wanted["event_types"],
            description=wanted["description"],
        )
        return Answer(EndpointWithSecretOutput.write(endpoint), status=201)


class EndpointApi(TokenOperation):
    @webhook_schema(
        operation_id="getWebhookEndpoint",
        problems=("not_found",),
        summary="One of your webhook endpoints, with its signing secret",
        description="Another token's endpoint, or an unknown id: 404 `not_found`.",
        parameters=[ENDPOINT_PATH],
        responses={200: OpenApiResponse(EndpointWithSecretOutput, description="The endpoint.")},
    )
    def get(self, request: Request, endpoint_id: str) -> Answer:
        return Answer(EndpointWithSecretOutput.write(subscriptions.find(self.token(request), endpoint_id)))

    @webhook_schema(
        operation_id="removeWebhookEndpoint",
        problems=("not_found",),
        summary="Stop receiving events at an endpoint",
        description="Removes it with what it had still to receive.",
        parameters=[ENDPOINT_PATH],
        responses={204: OpenApiResponse(description="Removed.")},
    )
    def delete(self, request: Request, endpoint_id: str) -> Answer:
        subscriptions.remove(self.token(request), endpoint_id)
        return Answer(None, status=204)


class EndpointResumeApi(TokenOperation):
    @webhook_schema(
        operation_id="resumeWebhookEndpoint",
        problems=("not_found",),
        summary="Resume a paused endpoint",
        description=(
            "Its waiting events go out again, one booking's in their order; one that is not paused stays "
            "as it is."
        ),
        parameters=[ENDPOINT_PATH],
        request=None,
        responses={200: OpenApiResponse(EndpointOutput, description="The endpoint, receiving.")},
    )
    def post(self, request: Request, endpoint_id: str) -> Answer:
        return Answer(EndpointOutput.write(subscriptions.resume(self.token(request), endpoint_id)))


class EndpointDeliveriesApi(TokenOperation):
    input_serializer = DeliveryListInput

    @webhook_schema(
        operation_id="listWebhookDeliveries",
        problems=("not_found",),
        summary="What an endpoint was sent and how it answered",
        description=(
            "Its latest deliveries, the newest event first (at most 100; events are kept 30 days): each "
            "event's id (the `webhook-id` header), type and booking, its state, attempts, the status and "
            "start of your endpoint's last answer, and when it is tried next. Another token's endpoint, or "
            "an unknown id: 404 `not_found`."
        ),
        parameters=[ENDPOINT_PATH, DeliveryListInput],
        responses={200: OpenApiResponse(DeliveryListOutput, description="The deliveries.")},
    )
    def get(self, request: Request, endpoint_id: str) -> Answer:
        state = self.validated(request).validated_data.get("state")
        listed = subscriptions.deliveries(self.token(request), endpoint_id, state=state)
        return Answer(DeliveryListOutput.write({"deliveries": listed}))
