"""Price differences a customer owes after staff changed the ride: a payment link (the provider's hosted
checkout, e-mailed to the customer) whose payment arrives like any other provider news, or money staff
collected themselves and confirm. Either adds to what the booking has received."""

import logging

from django.db import transaction
from django.utils import timezone

from booking import history, links, notifications
from booking.models import Booking, Refund, Surcharge
from booking.payments import payment_provider
from booking.payments.base import CheckoutRequest, SessionState
from pricing.money import from_cents

logger = logging.getLogger(__name__)


def request_payment(booking: Booking, amount_cents: int, *, actor: str, user=None) -> Surcharge:
    """Open a payment page for the difference and e-mail it (after the commit). Call with the booking
    row-locked; a provider failure raises PaymentError and the caller's transaction keeps nothing."""
    provider = payment_provider()
    surcharge = Surcharge.objects.create(
        booking=booking, amount_cents=amount_cents, currency=booking.currency, created_by=user
    )
    page = links.manage_url(booking.reference)
    session = provider.create_checkout_session(
        CheckoutRequest(
            reference=booking.reference,
            amount_cents=amount_cents,
            currency=booking.currency.lower(),
            description=f"{booking.reference}: price difference after a change",
            customer_email=booking.email or None,
            locale=booking.locale,
            success_url=page,
            cancel_url=page,
            idempotency_key=f"surcharge-{surcharge.pk}",
        )
    )
    surcharge.provider_session_id, surcharge.payment_url = session.session_id, session.url
    surcharge.save(update_fields=["provider_session_id", "payment_url"])
    history.record(
        booking,
        history.Kind.PAYMENT,
        history.said("Payment link for the difference of {amount} sent.", amount=history.eur(amount_cents)),
        actor=actor,
    )
    transaction.on_commit(
        lambda: notifications.send_payment_link(booking.pk, session.url, from_cents(amount_cents)),
        robust=True,
    )
    return surcharge


def record_paid(booking: Booking, amount_cents: int, *, actor: str, user=None) -> Surcharge:
    """Staff collected the difference themselves (cash, card terminal, invoice). Booking row-locked."""
    surcharge = Surcharge.objects.create(
        booking=booking, amount_cents=amount_cents, currency=booking.currency, status=Surcharge.Status.PAID,
        method=Refund.Method.MANUAL, paid_at=timezone.now(), created_by=user,
    )  # fmt: skip
    collected = history.said("Difference of {amount} collected by staff.", amount=history.eur(amount_cents))
    _received(booking, amount_cents, collected, actor=actor)
    return surcharge


def apply_session_news(
    surcharge: Surcharge, booking: Booking, paid: bool, session: SessionState, *, actor: str
):
    """A payment page of a difference was paid (both rows locked by the caller). Only its own amount and
    currency count; anything else is kept for the operator, as for a booking's own payment."""
    if not paid or surcharge.status != Surcharge.Status.PENDING:
        return  # not paid yet, or a replay
    charged = (session.amount_total, (session.currency or "").lower())
    if charged != (surcharge.amount_cents, surcharge.currency.lower()):
        reason = (
            f"a price difference page charged {session.amount_total} {session.currency}, "
            f"not {surcharge.amount_cents}"
        )
        logger.error("Surcharge payment for %s not applied: %s", booking.reference, reason)
        transaction.on_commit(lambda: notifications.alert_operator(booking.pk, reason), robust=True)
        return
    surcharge.status, surcharge.paid_at = Surcharge.Status.PAID, timezone.now()
    surcharge.save(update_fields=["status", "paid_at"])
    _received(
        booking,
        surcharge.amount_cents,
        history.said("Difference of {amount} paid online.", amount=history.eur(surcharge.amount_cents)),
        actor=actor,
    )


def _received(booking: Booking, amount_cents: int, text: history.Said, *, actor: str) -> None:
    booking.received_cents += amount_cents
    booking.save(update_fields=["received_cents", "updated_at"])
    history.record(booking, history.Kind.PAYMENT, text, actor=actor)
