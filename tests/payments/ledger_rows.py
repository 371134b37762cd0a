"""Test set-up: money a booking received, written to the ledger as payments/payment_updates.py records it."""

from django.db import transaction

from booking.models import Booking
from payments import ledger
from payments.models import Payment


def received(booking: Booking, cents: int | None = None, **payment) -> Payment:
    """The booking's own price arrived: through its checkout, or taken by staff for any other method."""
    checkout = booking.payment_method == "checkout"
    kind = Payment.Kind.CHECKOUT if checkout else Payment.Kind.STAFF
    defaults = {
        "kind": kind,
        "provider": booking.payment_provider if checkout else "",
        "session_id": booking.provider_session_id if checkout else None,
        "at": booking.paid_at,
    }
    amount = booking.amount_cents if cents is None else cents
    with transaction.atomic():  # as its writers: a price difference's waiting payment is locked
        return ledger.record_received(booking, amount, **{**defaults, **payment})


def paid_through_checkout(booking: Booking, session: str, intent: str) -> Payment:
    """A booking paid at its (fake) provider: its session and the payment intent the provider made."""
    Booking.objects.filter(pk=booking.pk).update(provider_session_id=session)
    booking.refresh_from_db()
    shares = ledger.received_shares(booking)
    if shares.exists():  # made paid by the fixture: its payment was the provider's
        payment = shares.first().payment
        payment.provider_session_id, payment.payment_intent_id = session, intent
        payment.save(update_fields=["provider_session_id", "payment_intent_id"])
        return payment
    return received(booking, payment_intent_id=intent)


def received_cents(booking: Booking) -> int:
    return ledger.received_cents(booking)


def own_intent(booking: Booking) -> str:
    payment = ledger.own_payment(booking)
    return payment.payment_intent_id if payment else ""
