"""The sandbox provider: a local hosted page instead of Stripe, for development and demos. Active only when
PAYMENT_PROVIDER resolves to `sandbox` (by default in debug without Stripe keys)."""

import hashlib
import hmac
import secrets

from django.utils.translation import gettext_lazy as _

from booking import selectors
from booking.models import Booking
from payments import selectors as payment_selectors
from payments.models import Payment, Refund
from payments.providers.base import (
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

SESSION_PREFIX = "sbx_cs_"
INTENT_PREFIX = "sbx_pi_"
REFUND_PREFIX = "sbx_re_"


class SandboxProvider:
    name = "sandbox"

    def __init__(self, *, public_base_url: str, secret: str):
        self.public_base_url = public_base_url.rstrip("/")
        self.secret = secret.encode()

    def _derived(self, prefix: str, key: str) -> str:
        """An id derived from a key, as Stripe's idempotency would: a retry gets the same object."""
        return prefix + hmac.new(self.secret, key.encode(), hashlib.sha256).hexdigest()[:24]

    def create_checkout_session(self, request: CheckoutRequest) -> CheckoutSession:
        session_id = self._derived(SESSION_PREFIX, request.idempotency_key)
        return CheckoutSession(
            session_id=session_id, url=f"{self.public_base_url}/booking/sandbox/{session_id}"
        )

    def retrieve_session(self, session_id: str) -> SessionState:
        booking = self._booking(session_id)
        paid = booking.money_received
        return self._state(
            session_id, booking, "complete" if paid else "open" if selectors.payable(booking) else "expired"
        )

    def expire_session(self, session_id: str) -> SessionState:
        """The sandbox keeps no sessions of its own: its page is open while the booking awaits payment (a
        price difference's while its link is pending), and the caller's move out of that state closes it."""
        surcharge = payment_selectors.surcharge_for_session(session_id)
        if surcharge is not None:
            payment = Payment.objects.get(surcharge=surcharge)  # the page's: it holds the session
            paid = payment.state == Payment.State.RECEIVED
            return SessionState(
                session_id=session_id,
                reference=surcharge.booking.reference,
                status="complete" if paid else "expired",
                payment_status="paid" if paid else "unpaid",
                payment_intent_id=payment.payment_intent_id or None,
                amount_total=surcharge.amount_cents,
                currency=surcharge.currency.lower(),
            )
        booking = self._booking(session_id)
        # Its own page's payment, not the booking's money: staff may have taken that outside the page.
        paid = Payment.objects.filter(provider_session_id=session_id, state=Payment.State.RECEIVED).exists()
        return self._state(session_id, booking, "complete" if paid else "expired", paid=paid)

    def _booking(self, session_id: str) -> Booking:
        booking = payment_selectors.booking_for_session(session_id, provider=self.name)
        if booking is None:
            raise PaymentError(_("The sandbox knows no such checkout session."))
        return booking

    def _state(
        self, session_id: str, booking: Booking, status: str, *, paid: bool | None = None
    ) -> SessionState:
        """`booking` is the one found by `session_id`; `paid`: whether its page took the money (else whether
        the booking received it)."""
        paid = booking.money_received if paid is None else paid
        return SessionState(
            session_id=session_id,
            reference=booking.reference,
            status=status,
            payment_status="paid" if paid else "unpaid",
            amount_total=_page_amount(session_id, booking),
            currency=booking.currency.lower(),
        )

    def create_payment_intent(
        self, *, amount_cents: int, currency: str, idempotency_key: str
    ) -> PaymentIntent:
        intent_id = "sbx_pi_" + secrets.token_hex(12)
        return PaymentIntent(intent_id=intent_id, client_secret=f"{intent_id}_secret_{secrets.token_hex(12)}")

    def create_refund(self, request: RefundRequest) -> RefundState:
        """A refund that succeeds at once (Stripe's card refunds usually do within seconds)."""
        if not request.payment_intent_id.startswith(INTENT_PREFIX):
            raise PaymentError(_("The sandbox knows no such payment."))
        return RefundState(
            refund_id=self._derived(REFUND_PREFIX, request.idempotency_key),
            payment_intent_id=request.payment_intent_id,
            amount_cents=request.amount_cents,
            currency=request.currency,
            status="succeeded",
            reference=request.reference,
        )

    def list_refunds(self, payment_intent_id: str) -> list[RefundState]:
        """The sandbox keeps no books of its own: its refunds are the ones recorded here."""
        return [
            RefundState(
                refund_id=refund.provider_refund_id,
                payment_intent_id=payment_intent_id,
                amount_cents=refund.amount_cents,
                currency=refund.currency.lower(),
                status=refund.status,
                reference=refund.booking.reference,
            )
            for refund in Refund.objects.filter(
                payment__payment_intent_id=payment_intent_id,
                provider_refund_id__startswith=REFUND_PREFIX,
            ).select_related("booking")
            if refund.provider_refund_id is not None  # always: the filter asked for the sandbox's ids
        ]

    def parse_webhook(self, payload: bytes, signature: str) -> PaymentEvent:
        raise WebhookSignatureError("The sandbox sends no webhooks.")

    def pay_event(self, *, session_id: str, reference: str, amount_cents: int, currency: str) -> PaymentEvent:
        """What the hosted page's Pay button reports: the event Stripe would send for a paid checkout."""
        return PaymentEvent(
            event_id=f"sandbox:{session_id}:paid",
            type="checkout.session.completed",
            session=SessionState(
                session_id=session_id,
                reference=reference,
                status="complete",
                payment_status="paid",
                payment_intent_id=self._derived(INTENT_PREFIX, session_id),
                amount_total=amount_cents,
                currency=currency.lower(),
            ),
        )


def _page_amount(session_id: str, booking: Booking) -> int:
    """What the booking's payment page asks: a return trip's pays both rides."""
    page = Payment.objects.filter(provider_session_id=session_id).values_list("amount_cents", flat=True)
    return page.first() or booking.amount_cents
