"""The two API calls of the booking page's script: its checkout and its quote. Errors are problem+json
(web.apps registers their paths), so the page can say what is wrong beside the field."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request

from apikit.operations import Operation
from apikit.renderers import Answer
from booking.ride_quotes import quote_ride
from booking.serializers import (
    AccountLinkOutput,
    PageCheckoutInput,
    RideQuoteInput,
    RideQuoteOutput,
    V1CheckoutOutput,
)
from payments.api import CHECKOUT_PROBLEMS, IDEMPOTENCY_KEY, IdempotentCheckoutOperation
from payments.models import IdempotentCheckout


class PageCheckoutApi(IdempotentCheckoutOperation):
    """The checkout of the booking page and the embedded form: no token (a browser holds none), and errors
    as problem+json with their codes and fields, so the page can say what is wrong beside the field in
    the traveller's language. Browsers on CORS_ALLOWED_ORIGINS may call it."""

    input_serializer = PageCheckoutInput
    output_serializer, success_status = V1CheckoutOutput, 201
    door = IdempotentCheckout.Door.PAGE
    anew_when_spent = True  # the key is the page script's, not the traveller's: a cancelled ride books anew

    @extend_schema(
        operation_id="createPageCheckout",
        summary="Book a ride from the booking page: store it and open a hosted checkout page",
        description=(
            "The booking page's own checkout (no token): like POST /api/v1/checkout, with the pickup time, "
            "vehicle class, name, e-mail and phone required. Errors are application/problem+json."
        ),
        tags=["pages"],
        request=PageCheckoutInput,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            201: OpenApiResponse(V1CheckoutOutput, description="The booking and its checkout session."),
            202: OpenApiResponse(
                AccountLinkOutput,
                description="paymentMethod `account`: a one-time link went to the address if an active "
                "company account allows it; the same answer for every address.",
            ),
        },
        extensions=CHECKOUT_PROBLEMS,
    )
    def post(self, request: Request) -> Answer:
        return super().post(request)


class PageQuoteApi(Operation):
    """The booking page's quote: the route and every class's price in one call, not one call per class."""

    input_serializer = RideQuoteInput

    @extend_schema(
        operation_id="getPageQuote",
        summary="Quote a ride for the booking page: the route and the price in every vehicle class",
        description=(
            "What GET /api/v1/distance and one GET /api/v1/price per vehicle class answer, in one call. "
            "Errors are application/problem+json (422 route_not_found, 503 upstream_unavailable; 400 for an "
            "hourly hire without `durationHours`, a rule between parameters that no schema can state)."
        ),
        tags=["pages"],
        parameters=[RideQuoteInput],
        responses={200: OpenApiResponse(RideQuoteOutput, description="The route and each class's price.")},
        extensions={"x-error-statuses": [422, 503]},
    )
    def get(self, request: Request) -> Answer:
        return Answer(RideQuoteOutput.write(quote_ride(**self.validated(request).validated_data)))
