from datetime import date

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from access.authentication import BearerTokenAuthentication, caller_key, requires_scope
from booking import payment_updates, selectors
from booking.availability import check_availability, default_policy_text
from booking.checkout import CheckoutResult, legacy_payment_intent, start_checkout
from booking.payments import payment_provider
from booking.serializers import (
    AvailabilityInput,
    AvailabilityOutput,
    CheckoutInput,
    CheckoutOutput,
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


CHECKOUT_PROBLEMS = {"x-error-statuses": [422, 502, 503]}


class CheckoutLegacyApi(Operation):
    input_serializer = CheckoutInput

    @extend_schema(
        operation_id="createCheckoutSession",
        summary="Start a payment: store the booking and open a hosted checkout page",
        tags=["legacy"],
        request=CheckoutInput,
        responses={200: OpenApiResponse(CheckoutOutput, description="The checkout session.")},
    )
    def post(self, request: Request) -> Response:
        return Response(CheckoutOutput(checkout(self.validated(request))).data)


class CheckoutApi(Operation):
    input_serializer = CheckoutInput
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
        responses={
            201: OpenApiResponse(V1CheckoutOutput, description="The booking and its checkout session.")
        },
        extensions=CHECKOUT_PROBLEMS,
    )
    def post(self, request: Request) -> Response:
        return Response(V1CheckoutOutput(checkout(self.validated(request))).data, status=201)


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
