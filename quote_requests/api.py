"""The REST door of quote requests: ask for one, and see how it stands."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request

from access.authentication import BearerTokenAuthentication, requires_scope
from access.models import ApiToken, Scope
from apikit.operations import Operation
from apikit.renderers import Answer
from booking.models import BookingChannel
from payments.models import IdempotentCheckout
from quote_requests import retries, services
from quote_requests.serializers import QuoteRequestInput, QuoteRequestOutput


class QuoteRequestsApi(Operation):
    input_serializer = QuoteRequestInput
    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [requires_scope(Scope.WRITE.value)]

    @extend_schema(
        operation_id="createQuoteRequest",
        summary="Ask staff for a quote: a trip the tariff cannot price",
        description=(
            "For what GET /api/v1/price refuses or cannot express: more passengers than the largest class "
            "seats (`vehicle_too_small` with empty `fittingClasses`), several cars, several days, a route "
            "outside the tariff's area. Staff answer by e-mail to `email` (an offer with a payment link), "
            "usually within a working day; the traveller gets an acknowledgement at once. `name` and "
            "`email` are required (a request nobody can be answered at is refused, nothing stored); a token "
            "that acts for a traveller (OAuth) may leave `email` out: it asks in their name. The same "
            "request again within ten minutes (a retry) answers the one it made. A pickup that has passed, "
            "or further ahead than bookings are taken, is a 400 naming `pickupDatetime`."
        ),
        tags=["booking"],
        request=QuoteRequestInput,
        responses={201: OpenApiResponse(QuoteRequestOutput, description="The request, open.")},
    )
    def post(self, request: Request) -> Answer:
        token = request.auth
        assert isinstance(token, ApiToken)  # noqa: S101  (the permission let only a token in)
        valid = self.validated(request)
        assert isinstance(valid, QuoteRequestInput)  # noqa: S101  (its input_serializer)
        asked = services.in_their_name(valid.asked(), token)
        answer = retries.asked_once(
            request._request,
            door=IdempotentCheckout.Door.QUOTE_V1,
            body=request.data,
            ask=lambda: services.request_quote(asked, channel=BookingChannel.API, api_token_id=token.pk),
        )
        return Answer(answer.body, status=answer.status)


class QuoteRequestApi(Operation):
    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [requires_scope(Scope.READ.value)]

    @extend_schema(
        operation_id="getQuoteRequest",
        summary="A quote request as it stands",
        description=(
            "For the token that asked (or another of its OAuth grant) and a token acting for the traveller "
            "who asked; anyone else, like an unknown reference, gets 404 `not_found`."
        ),
        tags=["booking"],
        parameters=[
            OpenApiParameter(
                "reference",
                str,
                OpenApiParameter.PATH,
                description="The request's reference, e.g. QR-7K3Q9X.",
            )
        ],
        responses={200: OpenApiResponse(QuoteRequestOutput, description="The request.")},
        extensions={"x-error-statuses": ["not_found"]},
    )
    def get(self, request: Request, reference: str) -> Answer:
        token = request.auth
        assert isinstance(token, ApiToken)  # noqa: S101  (the permission let only a token in)
        return Answer(QuoteRequestOutput.write(services.find(reference, token=token)))
