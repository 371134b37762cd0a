"""The REST door of booking where it reaches money: checking out (legacy and v1, with idempotent retries),
the legacy card flow, a checkout session's booking, and a booking's answer with what cancelling costs and
what was refunded, its cancel and a token's bookings. booking/api.py holds the door's money-free part."""

from datetime import date, timedelta

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request

from access.authentication import BearerTokenAuthentication, InsufficientScope, caller_key, requires_scope
from access.models import ApiToken, Scope
from apikit.deprecation import DeprecatedView, Deprecation
from apikit.errors import DomainError
from apikit.operations import Operation
from apikit.renderers import Answer
from booking import lifecycle, on_account, ownership
from booking.checkout import CheckoutResult
from booking.models import BookingChannel
from booking.serializers import (
    AccountLinkOutput,
    BookingEmailInput,
    BookingListInput,
    BookingListOutput,
    BookingStateOutput,
    CheckoutInput,
    CheckoutOutput,
    PaymentIntentInput,
    PaymentIntentOutput,
    SessionDataInput,
    SessionDataOutput,
    StoredBookingOutput,
    V1CheckoutInput,
    V1CheckoutOutput,
)
from payments import booking_state, idempotency, payment_updates
from payments import selectors as payment_selectors
from payments.checkout import legacy_payment_intent, start_checkout
from payments.models import IdempotentCheckout
from payments.providers import payment_provider


def checkout(valid: CheckoutInput, request: Request) -> CheckoutResult | on_account.LinkRequested:
    token = request.auth if isinstance(request.auth, ApiToken) else None
    ride = ownership.in_their_name(valid.booking_request(), token)  # a traveller's token: their address
    if valid.validated_data.get("payment_method") == "account":
        if token is None:  # the booking page: a mailed link proves the address
            return on_account.request_on_account(amount_cents=valid.validated_data["amount_cents"], ride=ride)
        return on_account.checkout_on_account(
            amount_cents=valid.validated_data["amount_cents"],
            ride=ride,
            account=token.company_account,
            channel=BookingChannel.API,
            api_token_id=token.pk,
        )
    return start_checkout(
        amount_cents=valid.validated_data["amount_cents"],
        ride=ride,
        channel=BookingChannel.API if token else BookingChannel.WEBSITE,
        api_token_id=token.pk if token else None,
    )


class IdempotentCheckoutOperation(Operation):
    """A checkout door that honours `Idempotency-Key`: the same key and body return the first answer."""

    input_serializer = CheckoutInput
    output_serializer: type[CheckoutOutput]
    success_status: int
    door: IdempotentCheckout.Door  # keys are kept per door: no door replays another's answer

    # Whether a key that made a booking no longer payable books anew (True) or is refused (409
    # `idempotency_key_spent`): a key the client chose names that booking; the page's own script makes its.
    anew_when_spent = False

    def post(self, request: Request) -> Answer:
        def run() -> idempotency.Made:
            valid = self.validated(request)
            if not isinstance(valid, CheckoutInput):  # every checkout door declares one
                raise TypeError(f"{type(valid).__name__} is not a CheckoutInput")
            result = checkout(valid, request)
            if isinstance(result, on_account.LinkRequested):  # the booking page on account: alike for all
                return idempotency.Made(202, AccountLinkOutput(result).data, None)
            return idempotency.Made(
                self.success_status, self.output_serializer(result).data, result.booking.pk
            )

        key = request.headers.get("Idempotency-Key")
        if key is None:
            made = run()
            return Answer(made.body, status=made.status)
        answer = idempotency.once(
            door=self.door,
            caller=caller_key(request._request),
            key=key,
            body=request.data,
            run=run,
            anew_when_spent=self.anew_when_spent,
            keep_for=_kept_for(request),
        )
        headers = {"Idempotent-Replayed": "true"} if answer.replayed else {}
        return Answer(answer.body, status=answer.status, headers=headers)


def _kept_for(request: Request) -> timedelta:
    """How long an answer is replayed: a day; the booking page's "check your e-mail" on account only as long
    as the one-time link it mailed lives, so a retry once the link died mails a new one (to an address an
    account allows; every address's answer alike, as ever)."""
    data = request.data if isinstance(request.data, dict) else {}
    if data.get("paymentMethod") == "account" and not isinstance(request.auth, ApiToken):
        return on_account.LINK_LIFETIME
    return idempotency.KEEP_FOR


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "minLength": 1, "maxLength": idempotency.MAX_KEY_LENGTH},
    OpenApiParameter.HEADER,
    description=(
        "Makes a retry safe: the same key with the same body returns the first successful answer (with "
        "`Idempotent-Replayed: true`) for 24 hours, without a second booking; with another body it is "
        "refused (422 `idempotency_key_reused`); while the first is still running a twin waits for it "
        "(409 `idempotency_conflict` if it takes too long). Keys are per client and per endpoint. A key "
        "whose booking was cancelled, expired or failed to pay is never replayed: 409 "
        "`idempotency_key_spent` (send a new key to book again; the booking page's checkout books anew)."
    ),
)
# 503 payment_provider_unavailable: no provider is configured (nothing is stored).
CHECKOUT_PROBLEMS = {"x-error-statuses": [409, 422, 502, 503, ("payment_provider_unavailable", 503)]}
# 403 account_not_allowed: paymentMethod `account` without a company account that allows the traveller.
V1_CHECKOUT_PROBLEMS = {
    **CHECKOUT_PROBLEMS,
    "x-error-notes": {
        403: "Also `account_not_allowed`: paymentMethod `account` with a token tied to no active company "
        "account, or for a traveller whose e-mail the account does not allow (nothing is stored). And "
        "`email_not_yours`: a token that acts for a traveller, with another bookingData.email (nothing "
        "is stored)."
    },
}
LEGACY_PROVIDER_MISSING = {
    "x-error-notes": {
        500: "Also when no payment provider is configured (the contract's 500; "
        "/api/v1 answers 503 payment_provider_unavailable)."
    }
}


class CheckoutLegacyApi(IdempotentCheckoutOperation):
    output_serializer, success_status = CheckoutOutput, 200
    door = IdempotentCheckout.Door.LEGACY

    @extend_schema(
        operation_id="createCheckoutSession",
        summary="Start a payment: store the booking and open a hosted checkout page",
        description=(
            "POST /api/v1/checkout as the first version of the interface answers it, without a token: the "
            "booking is stored, then the payment provider's hosted checkout page is opened; send the "
            "customer to `url`. `amount` must be the server's own price in cents (GET /api/v1/price); "
            'another is refused (400) with `expectedAmount`. Errors are `{"error": …}`.'
        ),
        tags=["legacy"],
        request=CheckoutInput,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: OpenApiResponse(CheckoutOutput, description="The checkout session.")},
        extensions=LEGACY_PROVIDER_MISSING,
    )
    def post(self, request: Request) -> Answer:
        return super().post(request)


class CheckoutApi(IdempotentCheckoutOperation):
    input_serializer = V1CheckoutInput
    output_serializer, success_status = V1CheckoutOutput, 201
    door = IdempotentCheckout.Door.V1
    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [requires_scope("booking.write")]

    @extend_schema(
        operation_id="createCheckout",
        summary="Book a ride: store it and open a hosted checkout page for its payment",
        description=(
            "`amount` must be the server's own price in cents (GET /api/v1/price); a different amount "
            "is refused with `amount_mismatch` and the expected amount. The booking is stored before the "
            "payment provider is asked, so a provider failure (502) loses nothing. Booking accepts the "
            "operator's current terms and conditions (`/en/terms`, `/de/terms`) for the traveller: show "
            "them that page before you book. `paymentMethod` `account` books on the company account your "
            "token is tied to, for a traveller whose e-mail the account allows: paid at once, no payment "
            "page (`url` null); otherwise 403 `account_not_allowed`, nothing stored. A token that acts for "
            "a traveller (OAuth) books in their name: leave `bookingData.email` out or send their address; "
            "another is 403 `email_not_yours`, nothing stored."
        ),
        tags=["booking"],
        request=V1CheckoutInput,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            201: OpenApiResponse(V1CheckoutOutput, description="The booking and its checkout session.")
        },
        extensions=V1_CHECKOUT_PROBLEMS,
    )
    def post(self, request: Request) -> Answer:
        return super().post(request)


class PaymentIntentLegacyApi(DeprecatedView, Operation):
    input_serializer = PaymentIntentInput
    deprecation = Deprecation(
        since=date(2026, 11, 1), sunset=date(2027, 3, 1), link="/api/docs#/legacy/createCheckoutSession"
    )

    @extend_schema(
        operation_id="createPaymentIntent",
        summary="The legacy card flow (deprecated: use the hosted checkout)",
        description=(
            "A payment intent of `amount` cents whose client secret the card form confirms. Deprecated "
            f"since {deprecation.since.isoformat()} and served until {deprecation.sunset.isoformat()}, as "
            "the Deprecation, Sunset and Link headers of every answer say: book with "
            "POST /api/create-checkout-session or POST /api/v1/checkout instead."
        ),
        tags=["legacy"],
        deprecated=True,
        request=PaymentIntentInput,
        responses={
            200: OpenApiResponse(PaymentIntentOutput, description="The payment intent's client secret.")
        },
        extensions=LEGACY_PROVIDER_MISSING,
    )
    def post(self, request: Request) -> Answer:
        intent = legacy_payment_intent(
            amount_cents=self.validated(request).validated_data["amount_cents"],
            client=caller_key(request._request),
            client_key=request.headers.get("Idempotency-Key", "")[:255],
        )
        return Answer(PaymentIntentOutput.write({"clientSecret": intent.client_secret}))


class SessionDataLegacyApi(Operation):
    input_serializer = SessionDataInput

    @extend_schema(
        operation_id="getSessionData",
        summary="The booking behind a checkout session (asks the provider first while it is unpaid)",
        description=(
            "The booking a checkout session stored, as the success page reads it when the payment page "
            "sends the customer back with `session_id`. While it is unpaid the payment provider is asked "
            "first, so a payment just made shows as paid. A session that stored no booking is a 404 with "
            "`error`."
        ),
        tags=["legacy"],
        parameters=[SessionDataInput],
        responses={200: OpenApiResponse(SessionDataOutput, description="The stored booking.")},
        extensions={"x-error-statuses": [404]},
    )
    def get(self, request: Request) -> Answer:
        booking = payment_selectors.booking_for_session(self.validated(request).validated_data["session_id"])
        if booking is None:
            raise DomainError("No booking has this checkout session.", code="not_found")
        booking = payment_updates.reconcile(booking, payment_provider)
        return Answer(SessionDataOutput.write({"bookingData": StoredBookingOutput.write(booking)}))


# --- the booking's lifecycle ---------------------------------------------------------------------------

REFERENCE_PATH = "A booking's reference, e.g. CB-7K3Q9X."
LIFECYCLE_PROBLEMS = ["not_found"]


class BookingOperation(Operation):
    """A booking opened by the token that booked it (with the operation's scope) or by the customer's
    e-mail address; anyone else gets `not_found`, as for an unknown reference."""

    authentication_classes = [BearerTokenAuthentication]  # optional: the e-mail address opens it too
    input_serializer = BookingEmailInput  # the query of GET, the body of POST; the reference is the path's
    scope: str

    def booking(self, request: Request, reference: str):
        email = self.validated(request).validated_data.get("email", "")
        token = request.auth if isinstance(request.auth, ApiToken) else None
        owner = token if token is not None and self.scope in token.scopes else None
        # A traveller's token opens their bookings with its scope, never by an e-mail address sent.
        if token is not None and owner is None and (token.acts_for or not email):
            raise InsufficientScope(self.scope, granted=token.scopes)
        booking = lifecycle.find(reference, token=owner, email=email)
        return booking, lifecycle.actor(owner, booking)


def lifecycle_schema(scope: str, parameters_extra=(), **kwargs):
    return extend_schema(
        tags=["booking"],
        auth=[{"bearerAuth": [scope]}, {}],  # type: ignore[list-item]  # security requirements, not names
        parameters=[
            OpenApiParameter("reference", str, OpenApiParameter.PATH, description=REFERENCE_PATH),
            *parameters_extra,
        ],
        responses={200: OpenApiResponse(BookingStateOutput, description="The booking as it is now.")},
        **kwargs,
    )


class BookingListApi(Operation):
    input_serializer = BookingListInput
    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [requires_scope(Scope.READ.value)]

    @extend_schema(
        operation_id="listBookings",
        summary="Your bookings: today's and later ones, or earlier ones, a page at a time",
        description=(
            "A token that acts for a traveller (signed in through OAuth) lists that traveller's bookings; "
            "any other token the bookings it booked (an OAuth token: any token of its grant). Each item "
            "is what GET /api/v1/bookings/{reference} answers. `when=upcoming` (default): rides from "
            "today on, soonest first; `past`: earlier ones, latest first; `all`: every one. Follow "
            "`nextCursor` for the next page (same `when`) until it is null."
        ),
        tags=["booking"],
        parameters=[BookingListInput],
        responses={200: OpenApiResponse(BookingListOutput, description="A page of your bookings.")},
    )
    def get(self, request: Request) -> Answer:
        token = request.auth
        assert isinstance(token, ApiToken)  # noqa: S101  (the permission let only a token in)
        page = booking_state.list_bookings(token=token, **self.validated(request).validated_data)
        return Answer(BookingListOutput.write(page))


class BookingApi(BookingOperation):
    scope = Scope.READ.value

    @lifecycle_schema(
        Scope.READ.value,
        operation_id="getBooking",
        summary="A booking's state, driver and cancellation terms",
        description=(
            "Send the bearer token that booked it (scope booking.read), or the customer's `email` as given "
            "when booking. A token that acts for a traveller (OAuth) opens that traveller's bookings only, "
            "whatever `email` it sends. Anyone else, like an unknown reference, gets 404 `not_found`."
        ),
        extensions={"x-error-statuses": LIFECYCLE_PROBLEMS},
        parameters_extra=[BookingEmailInput],
    )
    def get(self, request: Request, reference: str) -> Answer:
        booking, _ = self.booking(request, reference)
        return Answer(BookingStateOutput.write(booking_state.state_of(booking)))


class CancelBookingApi(BookingOperation):
    scope = Scope.WRITE.value

    @lifecycle_schema(
        Scope.WRITE.value,
        operation_id="cancelBooking",
        summary="Cancel a booking under the cancellation policy",
        description=(
            "Send the bearer token that booked it (scope booking.write), or the customer's `email` in the "
            "body (a token that acts for a traveller: their bookings only, whatever `email`). The policy "
            "decides the fee (`cancellation` of GET /api/v1/bookings/{reference} states it beforehand); "
            "the rest of what was paid is refunded the way it was paid. Cancelling a cancelled "
            "booking again answers it unchanged. 409 `not_cancellable` when its state or the pickup time "
            "no longer allows it."
        ),
        request=BookingEmailInput,
        extensions={"x-error-statuses": [*LIFECYCLE_PROBLEMS, "not_cancellable"]},
    )
    def post(self, request: Request, reference: str) -> Answer:
        booking, actor = self.booking(request, reference)
        return Answer(BookingStateOutput.write(booking_state.cancel(booking, actor=actor)))
