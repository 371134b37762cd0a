"""Stripe, through the official SDK (`stripe.StripeClient`, API v1): Checkout Sessions, the legacy
PaymentIntent, and verified webhooks (docs/decisions.md §9). Every call has a timeout and no automatic
retry (the idempotency key makes a retry by the caller safe); every SDK failure becomes a PaymentError
whose detail never echoes Stripe's message, so no key or card detail reaches a client or a log line."""

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import stripe
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from stripe import RequestOptions
from stripe.params import PaymentIntentCreateParams, RefundCreateParams
from stripe.params.checkout import SessionCreateParams

from payments.providers.base import (
    ChargeRefunds,
    CheckoutRequest,
    CheckoutSession,
    PaymentError,
    PaymentEvent,
    PaymentIntent,
    RefundRequest,
    RefundState,
    SessionState,
    WebhookSignatureError,
)

logger = logging.getLogger(__name__)

TIMEOUT = (3.05, 10.0)  # connect, read (seconds)
WEBHOOK_TOLERANCE_S = 300  # a signed webhook older than this is refused (replay protection)
SESSION_EVENT_PREFIX = "checkout.session."
MAX_ID_LENGTH, MAX_EVENT_TYPE_LENGTH = 255, 100  # as the booking tables store them
# A Refund object is the event's data.object (charge.refund.updated is the older name of refund.updated).
REFUND_EVENTS = frozenset({"refund.created", "refund.updated", "refund.failed", "charge.refund.updated"})
CHARGE_REFUNDED = "charge.refunded"  # data.object is the Charge, with its amount_refunded

# Short, fixed details by SDK error class; Stripe's own message is never passed on.
DETAILS: tuple[tuple[type[stripe.StripeError], Promise], ...] = (
    (stripe.APIConnectionError, _("Stripe cannot be reached.")),
    (stripe.RateLimitError, _("Stripe is busy; try again later.")),
    (stripe.AuthenticationError, _("Stripe refused the credentials.")),
    (stripe.PermissionError, _("Stripe refused the credentials.")),
    (stripe.CardError, _("The card was declined.")),
    (stripe.InvalidRequestError, _("Stripe rejected the request.")),
    (stripe.IdempotencyError, _("Stripe rejected a repeated request.")),
)


class StripeProvider:
    name = "stripe"

    def __init__(self, *, secret_key: str, webhook_secret: str, api_base: str):
        self.webhook_secret = webhook_secret
        self.client = stripe.StripeClient(
            secret_key,
            base_addresses={"api": api_base.rstrip("/")},
            max_network_retries=0,
            http_client=stripe.RequestsClient(timeout=TIMEOUT),
        )

    def __repr__(self) -> str:  # never show the client (and with it the key) in a traceback or log
        return "StripeProvider()"

    # --- operations ---------------------------------------------------------------------------------

    def create_checkout_session(self, request: CheckoutRequest) -> CheckoutSession:
        reference_metadata = {"reference": request.reference}
        params: SessionCreateParams = {
            "mode": "payment",
            "line_items": [
                {
                    "price_data": {
                        "currency": request.currency,
                        "unit_amount": request.amount_cents,
                        "product_data": {"name": request.description},
                    },
                    "quantity": 1,
                }
            ],
            "locale": request.locale,
            "metadata": reference_metadata,
            "payment_intent_data": {"metadata": reference_metadata},
            "client_reference_id": request.reference,
            "success_url": request.success_url,
            "cancel_url": request.cancel_url,
        }
        if request.customer_email:
            params["customer_email"] = request.customer_email
        if request.expires_at is not None:
            params["expires_at"] = int(request.expires_at.timestamp())
        with _asking("checkout session"):
            session = self.client.v1.checkout.sessions.create(
                params, {"idempotency_key": request.idempotency_key}
            )
        with _reading("checkout session"):
            data = session.to_dict()
            return CheckoutSession(session_id=_text(data["id"]), url=_text(data["url"]))

    def retrieve_session(self, session_id: str) -> SessionState:
        with _asking("session lookup"):
            session = self.client.v1.checkout.sessions.retrieve(session_id)
        with _reading("session"):
            return _session_state(session.to_dict())

    def expire_session(self, session_id: str) -> SessionState:
        with _asking("session expiry"):
            try:
                session = self.client.v1.checkout.sessions.expire(session_id)
            except stripe.InvalidRequestError:  # no longer open (completed or expired): ask how it ended
                return self.retrieve_session(session_id)
        with _reading("session"):
            return _session_state(session.to_dict())

    def create_payment_intent(
        self, *, amount_cents: int, currency: str, idempotency_key: str
    ) -> PaymentIntent:
        params: PaymentIntentCreateParams = {
            "amount": amount_cents,
            "currency": currency,
            "automatic_payment_methods": {"enabled": True},
            "metadata": {"flow": "legacy-card"},
        }
        options: RequestOptions = {"idempotency_key": idempotency_key} if idempotency_key else {}
        with _asking("payment intent"):
            intent = self.client.v1.payment_intents.create(params, options)
        with _reading("payment intent"):
            data = intent.to_dict()
            return PaymentIntent(intent_id=_text(data["id"]), client_secret=_text(data["client_secret"]))

    def create_refund(self, request: RefundRequest) -> RefundState:
        params: RefundCreateParams = {
            "payment_intent": request.payment_intent_id,
            "amount": request.amount_cents,
            "metadata": {"reference": request.reference},
        }
        with _asking("refund"):
            refund = self.client.v1.refunds.create(params, {"idempotency_key": request.idempotency_key})
        with _reading("refund"):
            return _refund_state(refund.to_dict())

    def list_refunds(self, payment_intent_id: str) -> list[RefundState]:
        with _asking("refund list"):
            page = self.client.v1.refunds.list({"payment_intent": payment_intent_id, "limit": 100})
        with _reading("refund list"):
            return [_refund_state(item) for item in page.to_dict()["data"]]

    def parse_webhook(self, payload: bytes, signature: str) -> PaymentEvent:
        try:
            event = self.client.construct_event(
                payload, signature, self.webhook_secret, tolerance=WEBHOOK_TOLERANCE_S
            )
        except stripe.SignatureVerificationError as exc:
            logger.warning("Stripe webhook refused: the signature does not verify")
            raise WebhookSignatureError("The Stripe-Signature does not verify.") from exc
        except (ValueError, TypeError, AttributeError, KeyError) as exc:  # signed, but not a Stripe event
            logger.warning("Stripe webhook refused: unreadable payload (%s)", type(exc).__name__)
            raise WebhookSignatureError("The webhook payload cannot be read.") from exc
        try:
            data = event.to_dict()
            event_type, item = _text(data["type"], MAX_EVENT_TYPE_LENGTH), data["data"]["object"]
            news: dict = {"session": None}
            if event_type.startswith(SESSION_EVENT_PREFIX):
                news["session"] = _session_state(item)
            elif event_type in REFUND_EVENTS:
                news["refund"] = _refund_state(item)
            elif event_type == CHARGE_REFUNDED:
                news["charge"] = _charge_refunds(item)
            return PaymentEvent(event_id=_text(data["id"]), type=event_type, **news)
        except (KeyError, TypeError, AttributeError) as exc:
            logger.warning("Stripe webhook refused: unexpected event shape (%s)", type(exc).__name__)
            raise WebhookSignatureError("The webhook payload cannot be read.") from exc


def _session_state(data: dict) -> SessionState:
    metadata = data.get("metadata") or {}
    reference = metadata.get("reference")
    return SessionState(
        session_id=_text(data["id"]),
        reference=None if reference is None else _text(reference),
        status=_text(data["status"]),
        payment_status=_text(data["payment_status"]),
        payment_intent_id=_id_of(data.get("payment_intent")),
        amount_total=_whole_number(data.get("amount_total")),
        currency=None if data.get("currency") is None else _text(data["currency"]),
    )


def _refund_state(data: dict) -> RefundState:
    metadata = data.get("metadata") or {}
    return RefundState(
        refund_id=_text(data["id"]),
        payment_intent_id=_id_of(data.get("payment_intent")),
        amount_cents=_amount(data["amount"]),
        currency=_text(data["currency"]),
        status=_text(data.get("status") or "pending"),  # nullable in Stripe's schema
        reference=None if metadata.get("reference") is None else _text(metadata["reference"]),
        failure_reason=None if data.get("failure_reason") is None else _text(data["failure_reason"]),
    )


def _charge_refunds(data: dict) -> ChargeRefunds:
    listed = data.get("refunds")
    refunds = listed.get("data", []) if isinstance(listed, dict) else []
    return ChargeRefunds(
        payment_intent_id=_id_of(data.get("payment_intent")),
        amount_refunded=_amount(data["amount_refunded"]),
        currency=_text(data["currency"]),
        refunds=tuple(_refund_state(item) for item in refunds),
    )


def _id_of(value) -> str | None:
    """An id that Stripe may send as text or, expanded, as the object itself."""
    if isinstance(value, dict):
        value = value.get("id")
    return None if value is None else _text(value)


@contextmanager
def _asking(operation: str) -> Iterator[None]:
    """A Stripe call: its errors become a PaymentError in the traveller's words, logged by their kind."""
    try:
        yield
    except stripe.StripeError as exc:
        logger.warning("Stripe %s failed: %s", operation, type(exc).__name__)
        kind = (detail for error_class, detail in DETAILS if isinstance(exc, error_class))
        raise PaymentError(next(kind, _("Stripe failed to answer."))) from exc


@contextmanager
def _reading(what: str) -> Iterator[None]:
    """Reading Stripe's answer: a shape we cannot read is a PaymentError, never a crash."""
    try:
        yield
    except (KeyError, TypeError, AttributeError) as exc:
        logger.warning("Stripe sent a malformed %s: %s", what, type(exc).__name__)
        raise PaymentError(_("Stripe sent an answer that cannot be read.")) from exc


def _whole_number(value) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected a whole number, got {type(value).__name__}")
    return value


def _amount(value) -> int:
    number = _whole_number(value)
    if number is None or number < 0:
        raise TypeError("expected an amount in cents")
    return number


def _text(value, limit: int = MAX_ID_LENGTH) -> str:
    """A text of Stripe's as the database can hold it; anything else makes the event unreadable."""
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    if "\x00" in value:  # no id of Stripe's has one, and the database cannot store or look it up
        raise TypeError("text with a NUL character")
    if len(value) > limit:  # Stripe's ids have at most 255 characters
        raise TypeError(f"text of {len(value)} characters")
    try:
        value.encode()
    except UnicodeEncodeError:  # a lone surrogate from a JSON escape: not text any database stores
        raise TypeError("text that is not valid Unicode") from None
    return value
