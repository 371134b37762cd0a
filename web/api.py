"""The two API calls of the booking page's script: its checkout and its quote. Errors are problem+json
(web.apps registers their paths), so the page can say what is wrong beside the field."""

from django.http import JsonResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request

from apikit import ratelimit
from apikit.operations import Operation
from apikit.problems import problem_response
from apikit.renderers import Answer
from booking.models import BookingChannel
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
from quote_requests import retries
from quote_requests import services as quote_requests
from quote_requests.serializers import PageQuoteRequestInput, QuoteRequestOutput


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


QUOTE_REQUEST_COST = 20  # requests of the budget a page's quote request counts for


class PageQuoteRequestApi(Operation):
    """The booking page's request for a quote, when no vehicle takes the trip: no token; the traveller reads
    the answer on the page (no acknowledgement e-mail to an address anyone could type)."""

    input_serializer = PageQuoteRequestInput

    @extend_schema(
        operation_id="createPageQuoteRequest",
        summary="Ask for a quote from the booking page",
        description="Like POST /api/v1/quote-requests, with `reason`: the quote's problem that led to it.",
        tags=["pages"],
        request=PageQuoteRequestInput,
        responses={201: OpenApiResponse(QuoteRequestOutput, description="The request, open.")},
    )
    def post(self, request: Request) -> Answer | JsonResponse:
        valid = self.validated(request)
        assert isinstance(valid, PageQuoteRequestInput)  # noqa: S101  (its input_serializer)
        # Each one mails the operator: a well-formed one costs as many requests as a minute of quoting.
        usage = ratelimit.count_more(request._request, QUOTE_REQUEST_COST - 1)
        if usage is not None and usage.exceeded:
            return problem_response(ratelimit.over_limit(usage))
        asked = valid.asked()
        answer = retries.asked_once(
            request._request,
            door=IdempotentCheckout.Door.QUOTE_PAGE,
            body=request.data,
            ask=lambda: quote_requests.request_quote(asked, channel=BookingChannel.WEBSITE),
        )
        return Answer(answer.body, status=answer.status)
