"""The sandbox provider: a local hosted page instead of Stripe, for development and demos. Active only when
PAYMENT_PROVIDER resolves to `sandbox` (by default in debug without Stripe keys)."""

import hashlib
import hmac
import secrets

from booking import selectors
from booking.models import Booking
from booking.payments.base import (
    CheckoutRequest,
    CheckoutSession,
    PaymentError,
    PaymentEvent,
    PaymentIntent,
    SessionState,
    WebhookSignatureError,
)

SESSION_PREFIX = "sbx_cs_"


class SandboxProvider:
    name = "sandbox"

    def __init__(self, *, public_base_url: str, secret: str):
        self.public_base_url = public_base_url.rstrip("/")
        self.secret = secret.encode()

    def create_checkout_session(self, request: CheckoutRequest) -> CheckoutSession:
        # Derived from the idempotency key, as Stripe would: a retry gets the same session.
        digest = hmac.new(self.secret, request.idempotency_key.encode(), hashlib.sha256).hexdigest()[:24]
        session_id = SESSION_PREFIX + digest
        return CheckoutSession(
            session_id=session_id, url=f"{self.public_base_url}/booking/sandbox/{session_id}"
        )

    def retrieve_session(self, session_id: str) -> SessionState:
        booking = self._booking(session_id)
        paid = booking.money_received
        return self._state(
            booking, "complete" if paid else "open" if selectors.payable(booking) else "expired"
        )

    def expire_session(self, session_id: str) -> SessionState:
        """The sandbox keeps no sessions of its own: its page is open while the booking awaits payment, and
        the caller's move of the booking out of that state is what closes it."""
        booking = self._booking(session_id)
        return self._state(booking, "complete" if booking.money_received else "expired")

    def _booking(self, session_id: str) -> Booking:
        booking = selectors.booking_for_session(session_id, provider=self.name)
        if booking is None:
            raise PaymentError("The sandbox knows no such checkout session.")
        return booking

    def _state(self, booking: Booking, status: str) -> SessionState:
        return SessionState(
            session_id=booking.provider_session_id,
            reference=booking.reference,
            status=status,
            payment_status="paid" if booking.money_received else "unpaid",
            amount_total=booking.amount_cents,
            currency=booking.currency.lower(),
        )

    def create_payment_intent(
        self, *, amount_cents: int, currency: str, idempotency_key: str
    ) -> PaymentIntent:
        intent_id = "sbx_pi_" + secrets.token_hex(12)
        return PaymentIntent(intent_id=intent_id, client_secret=f"{intent_id}_secret_{secrets.token_hex(12)}")

    def parse_webhook(self, payload: bytes, signature: str) -> PaymentEvent:
        raise WebhookSignatureError("The sandbox sends no webhooks.")

    def pay_event(self, booking: Booking) -> PaymentEvent:
        """What the hosted page's Pay button reports: the event Stripe would send for a paid checkout."""
        return PaymentEvent(
            event_id=f"sandbox:{booking.provider_session_id}:paid",
            type="checkout.session.completed",
            session=SessionState(
                session_id=booking.provider_session_id,
                reference=booking.reference,
                status="complete",
                payment_status="paid",
                amount_total=booking.amount_cents,
                currency=booking.currency.lower(),
            ),
        )
