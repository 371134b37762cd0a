"""Price differences a customer owes after staff changed the ride: a payment link (the provider's hosted
checkout, e-mailed to the customer) whose payment arrives like any other provider news, or money staff
collected themselves and confirm. Either adds to what the booking has received."""

import logging

from django.db import transaction
from django.utils import timezone

from booking import history, links, selectors
from booking import tasks as booking_tasks
from booking.models import Booking
from chauffeur.errors import DomainError
from payments import refunds
from payments import tasks as payment_tasks
from payments.models import Refund, Surcharge
from payments.providers import payment_provider
from payments.providers.base import PAID_PAYMENT_STATUSES, CheckoutRequest, PaymentError, SessionState
from pricing.money import CURRENCY, from_cents

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
    booking_tasks.send_payment_link.enqueue(booking.pk, session.url, str(from_cents(amount_cents)))
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


def waive_open(booking: Booking, *, actor: str) -> int:
    """Void the booking's unpaid payment links (booking row-locked): a later change or a cancellation
    settles from what was really received, so no old link may still be paid. Their pages are closed at the
    provider after the commit. Returns the cents waived."""
    waived = 0
    for surcharge in booking.surcharges.select_for_update().filter(status=Surcharge.Status.PENDING):
        surcharge.status = Surcharge.Status.WAIVED
        surcharge.save(update_fields=["status"])
        waived += surcharge.amount_cents
        history.record(
            booking,
            history.Kind.PAYMENT,
            history.said("Payment link for {amount} withdrawn.", amount=history.eur(surcharge.amount_cents)),
            actor=actor,
        )
        if surcharge.provider_session_id:
            payment_tasks.close_surcharge_page.enqueue(surcharge.pk)
    return waived


def close_page(surcharge_id: int) -> None:
    """Close a withdrawn link's page at the provider. Money that arrived first is applied like any late
    payment (given back); if the provider cannot answer, its webhook or `reconcile_payments` tells later."""
    surcharge = Surcharge.objects.get(pk=surcharge_id)
    try:
        session = payment_provider().expire_session(surcharge.provider_session_id)
    except PaymentError:
        logger.warning(
            "Could not close the payment page of a withdrawn link of %s", surcharge.booking.reference
        )
        return
    apply_if_paid(surcharge, session)


def apply_if_paid(surcharge: Surcharge, session: SessionState) -> bool:
    """What the provider says of a link's page, when it says the page was paid; whether it was."""
    if session.payment_status not in PAID_PAYMENT_STATUSES:
        return False
    with transaction.atomic():
        booking = selectors.locked_booking(surcharge.booking_id)
        locked = selectors.locked_surcharge_for_session(surcharge.provider_session_id)
        apply_session_news(
            locked, booking, True, session, actor=f"payment provider ({booking.payment_provider})"
        )
    return True


def apply_session_news(
    surcharge: Surcharge, booking: Booking, paid: bool, session: SessionState, *, actor: str
):
    """A payment page of a difference was paid (both rows locked by the caller). Only its own amount and
    currency count; anything else is kept for the operator, as for a booking's own payment. Money for a
    link that was withdrawn, or for a ride that is no longer on, is recorded and given back at once."""
    if not paid or surcharge.paid_at is not None:
        return  # not paid yet, or a replay
    charged = (session.amount_total, (session.currency or "").lower())
    if charged != (surcharge.amount_cents, surcharge.currency.lower()):
        reason = (
            f"a price difference page charged {session.amount_total} {session.currency}, "
            f"not {surcharge.amount_cents}"
        )
        logger.error("Surcharge payment for %s not applied: %s", booking.reference, reason)
        booking_tasks.alert_operator.enqueue(booking.pk, reason)
        return
    owed = surcharge.status == Surcharge.Status.PENDING and booking.status in selectors.PAID_STATES
    surcharge.paid_at, surcharge.payment_intent_id = timezone.now(), session.payment_intent_id or ""
    if owed:
        surcharge.status = Surcharge.Status.PAID
    surcharge.save(update_fields=["status", "paid_at", "payment_intent_id"])
    _received(
        booking,
        surcharge.amount_cents,
        history.said("Difference of {amount} paid online.", amount=history.eur(surcharge.amount_cents)),
        actor=actor,
    )
    if not owed:
        _give_back(booking, surcharge, actor=actor)


def _give_back(booking: Booking, surcharge: Surcharge, *, actor: str) -> None:
    """Money that arrived through a withdrawn link, or for a ride no longer on: refunded through the
    provider; if the provider refuses, the operator is told to do it."""
    try:
        with transaction.atomic():
            refunds.refund(
                booking, surcharge.amount_cents, actor=actor,
                reason="Paid through a withdrawn payment link: given back.",
            )  # fmt: skip
    except DomainError as error:
        reason = (
            f"{_eur(surcharge.amount_cents)} arrived through a withdrawn payment link and could not be "
            f"given back ({error})"
        )
        logger.error("%s: %s", booking.reference, reason)
        booking_tasks.alert_operator.enqueue(booking.pk, reason, topic="Refund")


def _received(booking: Booking, amount_cents: int, text: history.Said, *, actor: str) -> None:
    booking.received_cents += amount_cents
    booking.save(update_fields=["received_cents", "updated_at"])
    history.record(booking, history.Kind.PAYMENT, text, actor=actor)


def _eur(cents: int) -> str:
    return f"{from_cents(cents)} {CURRENCY}"
