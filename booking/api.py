from datetime import date

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from access.authentication import BearerTokenAuthentication, caller_key, requires_scope
from booking import idempotency, payment_updates, selectors
from booking.availability import check_availability, default_policy_text
from booking.checkout import CheckoutResult, legacy_payment_intent, start_checkout
from booking.payments import payment_provider
from booking.serializers import (
    AvailabilityInput,
    AvailabilityOutput,
    CheckoutInput,
    CheckoutOutput,
    PageCheckoutInput,
    PaymentIntentInput,
    PaymentIntentOutput,
    SessionDataInput,
    SessionDataOutput,
    StoredBookingOutput,
    V1CheckoutOutput,
)
from chauffeur.api.deprecation import DeprecatedView, Deprecation
from chauffeur.api.operations import Operation
from chauffeur.errors import DomainError


class AvailabilityApi(Operation):
    input_serializer = AvailabilityInput

    @extend_schema(
        operation_id="getAvailability",
        summary="Check the lead time of a pickup",
        description=default_policy_text(),
        tags=["quotes"],
        parameters=[AvailabilityInput],
        responses={200: OpenApiResponse(AvailabilityOutput, description="Whether the pickup can be booked.")},
    )
    def get(self, request: Request) -> Response:
        availability = check_availability(**self.validated(request).validated_data)
        return Response(AvailabilityOutput(availability).data)


def checkout(valid: CheckoutInput) -> CheckoutResult:
    return start_checkout(amount_cents=valid.validated_data["amount_cents"], ride=valid.booking_request())


class IdempotentCheckoutOperation(Operation):
    """A checkout door that honours `Idempotency-Key`: the same key and body return the first answer."""

    input_serializer = CheckoutInput
    output_serializer: type[CheckoutOutput]
    success_status: int

    def post(self, request: Request) -> Response:
        def run() -> tuple[int, dict]:
            return self.success_status, self.output_serializer(checkout(self.validated(request))).data

        key = request.headers.get("Idempotency-Key")
        if key is None:
            return Response(run()[1], status=self.success_status)
        answer = idempotency.once(caller=caller_key(request._request), key=key, body=request.data, run=run)
        headers = {"Idempotent-Replayed": "true"} if answer.replayed else {}
        return Response(answer.body, status=answer.status, headers=headers)


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "minLength": 1, "maxLength": idempotency.MAX_KEY_LENGTH},
    OpenApiParameter.HEADER,
    description=(
        "Makes a retry safe: the same key with the same body returns the first successful answer (with "
        "`Idempotent-Replayed: true`) for 24 hours, without a second booking; with another body it is "
        "refused (422 `idempotency_key_reused`); while the first is still running a twin waits for it "
        "(409 `idempotency_conflict` if it takes too long). Keys are per client."
    ),
)
CHECKOUT_PROBLEMS = {"x-error-statuses": [409, 422, 502, 503]}


class CheckoutLegacyApi(IdempotentCheckoutOperation):
    output_serializer, success_status = CheckoutOutput, 200

    @extend_schema(
        operation_id="createCheckoutSession",
        summary="Start a payment: store the booking and open a hosted checkout page",
        tags=["legacy"],
        request=CheckoutInput,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: OpenApiResponse(CheckoutOutput, description="The checkout session.")},
    )
    def post(self, request: Request) -> Response:
        return super().post(request)


class CheckoutApi(IdempotentCheckoutOperation):
    output_serializer, success_status = V1CheckoutOutput, 201
    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [requires_scope("booking.write")]

    @extend_schema(
        operation_id="createCheckout",
        summary="Book a ride: store it and open a hosted checkout page for its payment",
        description=(
            "`amount` must be the server's own price in cents (GET /api/v1/price); a different amount "
            "is refused with `amount_mismatch` and the expected amount. The booking is stored before the "
            "payment provider is asked, so a provider failure (502) loses nothing."
        ),
        tags=["booking"],
        request=CheckoutInput,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            201: OpenApiResponse(V1CheckoutOutput, description="The booking and its checkout session.")
        },
        extensions=CHECKOUT_PROBLEMS,
    )
    def post(self, request: Request) -> Response:
        return super().post(request)


class PageCheckoutApi(IdempotentCheckoutOperation):
    """The checkout of the booking page and the embedded form: no token (a browser holds none), and errors
    as problem+json with their codes and fields, so the page can say what is wrong beside the field in
    the traveller's language. Browsers on CORS_ALLOWED_ORIGINS may call it."""

    input_serializer = PageCheckoutInput
    output_serializer, success_status = V1CheckoutOutput, 201

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
            201: OpenApiResponse(V1CheckoutOutput, description="The booking and its checkout session.")
        },
        extensions=CHECKOUT_PROBLEMS,
    )
    def post(self, request: Request) -> Response:
        return super().post(request)


class PaymentIntentLegacyApi(DeprecatedView, Operation):
    input_serializer = PaymentIntentInput
    deprecation = Deprecation(
        since=date(2026, 11, 1), sunset=date(2027, 3, 1), link="/api/docs#/legacy/createCheckoutSession"
    )

    @extend_schema(
        operation_id="createPaymentIntent",
        summary="The legacy card flow (deprecated: use the hosted checkout)",
        tags=["legacy"],
        deprecated=True,
        request=PaymentIntentInput,
        responses={
            200: OpenApiResponse(PaymentIntentOutput, description="The payment intent's client secret.")
        },
    )
    def post(self, request: Request) -> Response:
        intent = legacy_payment_intent(
            amount_cents=self.validated(request).validated_data["amount_cents"],
            client=caller_key(request._request),
            client_key=request.headers.get("Idempotency-Key", "")[:255],
        )
        return Response(PaymentIntentOutput({"clientSecret": intent.client_secret}).data)


class SessionDataLegacyApi(Operation):
    input_serializer = SessionDataInput

    @extend_schema(
        operation_id="getSessionData",
        summary="The booking behind a checkout session (asks the provider first while it is unpaid)",
        tags=["legacy"],
        parameters=[SessionDataInput],
        responses={200: OpenApiResponse(SessionDataOutput, description="The stored booking.")},
        extensions={"x-error-statuses": [404]},
    )
    def get(self, request: Request) -> Response:
        booking = selectors.booking_for_session(self.validated(request).validated_data["session_id"])
        if booking is None:
            raise DomainError("No booking has this checkout session.", code="not_found")
        booking = payment_updates.reconcile(booking, payment_provider)
        return Response(SessionDataOutput({"bookingData": StoredBookingOutput(booking).data}).data)
