"""The payment provider interface (docs/decisions.md §9). The rest of the code depends on this module
only; the Stripe and sandbox implementations live beside it."""

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from apikit.errors import DomainError

# A checkout session's payment_status values that mean the money is there.
PAID_PAYMENT_STATUSES = frozenset({"paid", "no_payment_required"})


class PaymentError(DomainError):
    """The provider failed or refused; the booking is kept (code `payment_provider_unavailable`)."""

    code = "payment_provider_unavailable"


class WebhookSignatureError(Exception):
    """A webhook whose signature does not verify: answered 400, nothing changes."""


@dataclass(frozen=True)
class CheckoutRequest:
    reference: str  # the booking's, e.g. CB-7K3Q9X; sent as metadata
    amount_cents: int
    currency: str  # ISO 4217, lower case: "eur"
    description: str  # shown on the hosted page
    customer_email: str | None
    locale: str  # "de" or "en"
    success_url: str  # may contain {CHECKOUT_SESSION_ID}
    cancel_url: str
    idempotency_key: str  # derived from the booking: a retry never creates a second session
    expires_at: datetime | None = None  # the page closes then: no payment after the pickup's lead time


@dataclass(frozen=True)
class CheckoutSession:
    session_id: str
    url: str


@dataclass(frozen=True)
class SessionState:
    session_id: str
    reference: str | None  # metadata.reference
    status: str  # "open", "complete" or "expired"
    payment_status: str  # "paid", "unpaid" or "no_payment_required"
    payment_intent_id: str | None = None
    amount_total: int | None = None  # cents, as the provider charges them
    currency: str | None = None  # ISO 4217, lower case


@dataclass(frozen=True)
class RefundRequest:
    payment_intent_id: str  # the payment to refund (part of)
    amount_cents: int
    currency: str  # ISO 4217, lower case
    reference: str  # the booking's; sent as metadata
    idempotency_key: str  # a retry of the same refund never refunds twice


@dataclass(frozen=True)
class RefundState:
    refund_id: str
    payment_intent_id: str | None
    amount_cents: int
    currency: str
    status: str  # "pending", "requires_action", "succeeded", "failed" or "canceled"
    reference: str | None = None  # metadata.reference
    failure_reason: str | None = None


@dataclass(frozen=True)
class ChargeRefunds:
    """What a `charge.refunded` event says: the refunded total of a payment, and its refunds where the
    event lists them (newer API versions do not)."""

    payment_intent_id: str | None
    amount_refunded: int
    currency: str
    refunds: tuple[RefundState, ...] = ()


@dataclass(frozen=True)
class PaymentEvent:
    event_id: str
    type: str  # e.g. "checkout.session.completed"
    session: SessionState | None  # a checkout session's news; None for other events
    refund: RefundState | None = None  # refund.created / refund.updated / refund.failed
    charge: ChargeRefunds | None = None  # charge.refunded


@dataclass(frozen=True)
class PaymentIntent:
    intent_id: str
    client_secret: str


class PaymentProvider(Protocol):
    name: str

    def create_checkout_session(self, request: CheckoutRequest) -> CheckoutSession: ...

    def retrieve_session(self, session_id: str) -> SessionState: ...

    def expire_session(self, session_id: str) -> SessionState:
        """Close an open checkout page so it can no longer be paid (the traveller cancelled); a session
        that was completed meanwhile is answered as it is."""
        ...

    def create_payment_intent(
        self, *, amount_cents: int, currency: str, idempotency_key: str
    ) -> PaymentIntent: ...

    def create_refund(self, request: RefundRequest) -> RefundState: ...

    def list_refunds(self, payment_intent_id: str) -> list[RefundState]: ...

    def parse_webhook(self, payload: bytes, signature: str) -> PaymentEvent: ...
