"""Refunds: money given back through the payment provider (Stripe's Refunds API, simulated by the sandbox)
or by staff outside it, and the provider's refund news (`refund.*` and `charge.refunded` webhooks), which
may arrive in any order: a refund's state only moves forward (pending → succeeded → failed)."""

import logging
from collections.abc import Callable
from decimal import Decimal

from django.db import transaction
from django.db.models import Sum
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django_tasks import task

from apikit.errors import DomainError
from booking import announcements, history, selectors, trips
from booking import tasks as booking_tasks
from booking.models import Booking
from invoicing import credit_notes
from invoicing.models import CreditNote
from jobqueue import delivery
from payments import ledger, priced_lines
from payments.ledger import COMMITTED
from payments.models import Payment, Refund, RefundStatus, Surcharge
from payments.providers import payment_provider
from payments.providers.base import ChargeRefunds, PaymentError, PaymentProvider, RefundRequest, RefundState
from pricing.money import CURRENCY, from_cents
from sitekit import l10n

logger = logging.getLogger(__name__)

# How far along a refund is; news of an earlier stage never overwrites a later one.
STAGE: dict[str, int] = {
    RefundStatus.PENDING: 0,
    RefundStatus.REQUIRES_ACTION: 0,
    RefundStatus.SUCCEEDED: 1,
    RefundStatus.FAILED: 2,
    RefundStatus.CANCELED: 2,
}


def _total(booking: Booking, statuses) -> int:
    return selectors.refunds_total(booking, statuses)


def refunded_cents(booking: Booking) -> int:
    """What went back to the customer (succeeded refunds)."""
    return _total(booking, [RefundStatus.SUCCEEDED])


def committed_cents(booking: Booking) -> int:
    """What went back or is on its way back (succeeded and pending refunds)."""
    return _total(booking, COMMITTED)


def refundable_cents(booking: Booking) -> int:
    """What was received for a booking and not yet promised back (the ledger's)."""
    return ledger.refundable_cents(booking)


def through_provider(booking: Booking) -> bool:
    """Whether some of the booking's money came through the payment provider (it can go back that way)."""
    return bool(ledger.open_payments(booking, provider_only=True))


def refund(
    booking: Booking,
    amount_cents: int,
    *,
    reason: str,
    actor: str,
    requested_by=None,
    manual: bool = False,
    details: dict | None = None,
) -> list[Refund]:
    """Give back `amount_cents` of a booking the caller holds row-locked (inside its transaction): through
    the provider to the payments it came with, newest first, unless staff say they paid it back themselves
    (`manual`); what came in outside the provider is owed by staff. `details`: what its credit note prints
    besides (invoices.reason_by_hand). A provider failure raises PaymentError, and the caller's transaction
    keeps nothing."""
    available = refundable_cents(booking)
    if amount_cents < 1 or amount_cents > available:
        raise DomainError(
            f"A refund of {booking.reference} must be between 0.01 and {from_cents(available)} {CURRENCY} "
            "(what was received and not yet refunded).",
            shown=format_lazy(
                _(
                    "A refund of {reference} must be between {least} and {most} (what was received and not "
                    "yet refunded)."
                ),
                reference=booking.reference,
                least=l10n.money(Decimal("0.01")),
                most=l10n.money(from_cents(available)),
            ),
            field="amount_cents",
        )
    made, left = [], amount_cents
    if not manual:
        for payment, open_cents in ledger.open_payments(booking, provider_only=True):
            piece = min(left, open_cents)
            made.append(
                _through_provider(
                    booking,
                    payment,
                    piece,
                    reason=reason,
                    actor=actor,
                    by=requested_by,
                    details=details or {},
                )
            )
            left -= piece
            if not left:
                return made
    status = RefundStatus.SUCCEEDED if manual else RefundStatus.PENDING  # owed: staff pay it back
    for source, piece in ledger.given_back_to(booking, left):
        made.append(
            _recorded(
                Refund.objects.create(
                    booking=booking,
                    payment=source,
                    amount_cents=piece,
                    currency=booking.currency,
                    status=status,
                    method=Refund.Method.MANUAL,
                    reason=reason,
                    requested_by=requested_by,
                    details=details or {},
                ),
                just_made=True,
            )
        )
    amount = history.eur(left)
    done = (
        history.said("Refund of {amount}: paid back by staff. {reason}", amount=amount, reason=reason)
        if manual
        else history.said(
            "Refund of {amount}: owed: to be paid back by staff (not paid online). {reason}",
            amount=amount,
            reason=reason,
        )
    )
    history.record(booking, history.Kind.REFUND, done, actor=actor)
    return made


def _through_provider(
    booking: Booking, payment: Payment, amount_cents: int, *, reason: str, actor: str, by, details: dict
) -> Refund:
    provider, intent = payment_provider(), payment.payment_intent_id
    if provider.name != payment.provider:
        raise DomainError(
            format_lazy(
                _(
                    "{reference} was paid through {paid_through}, not the active provider ({active}): "
                    "refund it there and record it here as paid back by staff."
                ),
                reference=booking.reference,
                paid_through=payment.provider,
                active=provider.name,
            ),
            code="payment_provider_unavailable",
        )
    state = provider.create_refund(
        RefundRequest(
            payment_intent_id=intent,
            amount_cents=amount_cents,
            currency=booking.currency.lower(),
            reference=booking.reference,
            # The same refund asked again (a retry after a timeout) is the same refund at the provider.
            idempotency_key=f"refund-{booking.reference}-{booking.refunds.count()}-{amount_cents}",
        )
    )
    created = Refund.objects.create(
        booking=booking,
        payment=payment,
        amount_cents=state.amount_cents,
        currency=booking.currency,
        status=state.status,
        provider_refund_id=state.refund_id,
        reason=reason,
        requested_by=by,
        failure_reason=state.failure_reason or "",
        surcharge=payment.surcharge,
        details=details,
    )
    _recorded(created, just_made=True)
    history.record(
        booking,
        history.Kind.REFUND,
        history.said(
            "Refund of {amount} through {provider} ({refund}): {state}. {reason}",
            amount=history.eur(state.amount_cents),
            provider=provider.name,
            refund=state.refund_id,
            state=history.refund_state(state.status),
            reason=reason,
        ),
        actor=actor,
    )
    return created


def paid_with(booking: Booking, intent: str | None) -> Surcharge | None:
    """The price difference whose payment `intent` is, if it is one: a refund to it counts against it."""
    payment = ledger.payment_of_intent(booking, intent)
    return payment.surcharge if payment else None


# --- money paid for a price difference, given back ----------------------------------------------------

SENDING_FAILED = "Refund {refund}: the payment provider failed ({error}); it is tried again."
ACTOR = "payment provider (refund)"  # who sends a recorded refund, as the history says


def give_back_charge(booking: Booking, surcharge: Surcharge, amount_cents: int, *, reason: str, actor: str):
    """Record that `amount_cents` paid for `surcharge` goes back (booking row-locked), calling nobody: a
    refund row that counts at once (what a cause still keeps is a query over these rows). Paid online, a
    job sends it to the provider (`send`); collected by staff, it is owed by staff, who are alerted with
    the booking's page, where "Paid back" is one click."""
    paid_with = Payment.objects.filter(surcharge=surcharge).first()
    online = surcharge.method == Refund.Method.PROVIDER and bool(paid_with and paid_with.payment_intent_id)
    asked = Refund.objects.create(
        booking=booking,
        payment=paid_with,
        amount_cents=amount_cents,
        currency=booking.currency,
        status=RefundStatus.PENDING,
        method=Refund.Method.PROVIDER if online else Refund.Method.MANUAL,
        surcharge=surcharge,
        reason=reason,
    )
    what, amount = history.surcharge_reason(surcharge.reason), history.eur(amount_cents)
    if online:
        said = history.said(
            "Refund of {amount} paid for {what}: asked of the payment provider. {reason}",
            amount=amount,
            what=what,
            reason=reason,
        )
        history.record(booking, history.Kind.REFUND, said, actor=actor)
        send_refund.enqueue(asked.pk)
    else:
        _owed_by_staff(booking, asked, actor=actor, why="it was not paid online")
    return asked


def send(refund_id: int) -> None:
    """Send a recorded refund to the payment provider (a job; retried when the provider fails). Done once:
    a refund the provider has, or that is no longer waiting, is left as it is."""
    try:
        with transaction.atomic():
            booking_id = Refund.objects.filter(pk=refund_id).values_list("booking_id", flat=True).first()
            if booking_id is None:
                return
            booking = selectors.locked_booking(booking_id)
            asked = Refund.objects.select_for_update().get(pk=refund_id)
            waiting = asked.status == RefundStatus.PENDING and asked.method == Refund.Method.PROVIDER
            if not waiting or asked.provider_refund_id:
                return
            provider = payment_provider()
            paid_through = asked.payment.provider if asked.payment else ""  # none: never from the provider
            if provider.name != paid_through:
                why = f"it was paid through {paid_through}, not the active {provider.name}"
                _owed_by_staff(booking, asked, actor=ACTOR, why=why)
                return
            state = provider.create_refund(
                RefundRequest(
                    payment_intent_id=asked.payment_intent_id,
                    amount_cents=asked.amount_cents,
                    currency=booking.currency.lower(),
                    reference=booking.reference,
                    idempotency_key=f"refund-{booking.reference}-row-{asked.pk}",
                )
            )
            asked.provider_refund_id, asked.status = state.refund_id, state.status
            asked.failure_reason = state.failure_reason or ""
            asked.save(update_fields=["provider_refund_id", "status", "failure_reason", "updated_at"])
            history.record(
                booking,
                history.Kind.REFUND,
                history.said(
                    "Refund of {amount} through {provider} ({refund}): {state}. {reason}",
                    amount=history.eur(asked.amount_cents),
                    provider=provider.name,
                    refund=state.refund_id,
                    state=history.refund_state(state.status),
                    reason=asked.reason,
                ),
                actor=ACTOR,
            )
            _recorded(asked, just_made=True)
            if state.status == RefundStatus.FAILED:
                _alert_failed(booking, state)
    except PaymentError as error:
        _tell_staff_once(refund_id, error)
        raise  # the queue tries again after its backoff


@task()
def send_refund(refund_id: int) -> None:
    """A refund recorded here (money paid for a charge that no longer holds), sent to the provider."""
    send(refund_id)


def _owed_by_staff(booking: Booking, asked: Refund, *, actor: str, why: str) -> None:
    asked.method = Refund.Method.MANUAL
    asked.save(update_fields=["method", "updated_at"])
    history.record(
        booking,
        history.Kind.REFUND,
        history.said(
            "Refund of {amount}: owed: to be paid back by staff (not paid online). {reason}",
            amount=history.eur(asked.amount_cents),
            reason=asked.reason,
        ),
        actor=actor,
    )
    booking_tasks.alert_operator.enqueue(
        booking.pk,
        f"{_eur(asked.amount_cents)} goes back to the customer and cannot be refunded automatically, as "
        f"{why}: pay it back, then press “Paid back” beside the refund on the booking's page",
        topic="Refund",
    )


def _tell_staff_once(refund_id: int, error: DomainError) -> None:
    logger.warning("Refund %s could not be sent to the provider: %s", refund_id, error)
    with transaction.atomic():
        asked = Refund.objects.select_related("booking").get(pk=refund_id)
        booking = selectors.locked_booking(asked.booking_id)
        if booking.history.filter(message=SENDING_FAILED, params__refund=refund_id).exists():
            return
        said = history.said(SENDING_FAILED, refund=refund_id, error=str(error))
        history.record(booking, history.Kind.REFUND, said, actor=ACTOR)
        booking_tasks.alert_operator.enqueue(
            booking.pk,
            f"a refund of {_eur(asked.amount_cents)} could not be sent to the payment provider ({error}); it "
            "is tried again (Background jobs show it); if it keeps failing, refund it at the provider",
            topic="Refund",
        )


def _recorded(refund: Refund, *, just_made: bool = False) -> Refund:
    """Every refund recorded or moved forward passes here: one that is done gets its credit note, in the
    same transaction, and agents and partners hear of it once. `just_made`: asked for by us just now."""
    credit_note(refund, just_made=just_made)
    if refund.status == RefundStatus.SUCCEEDED:
        delivery.once(
            f"announced:refund:{refund.pk}",
            lambda: announcements.announce(
                refund.booking,
                "booking.refunded",
                refund={"amount": str(from_cents(refund.amount_cents)), "currency": refund.currency},
            ),
        )
    return refund


def credit_note(refund: Refund, *, just_made: bool = False) -> CreditNote | None:
    """The credit note of a refund once it is done (invoicing/credit_notes.py), in the caller's transaction
    with the booking row-locked; None for one not done."""
    if refund.status != RefundStatus.SUCCEEDED:
        return None
    return credit_notes.issue_for(priced_lines.credit(refund, just_made=just_made))


def confirm_paid_back(refund_id: int, *, actor: str) -> Refund:
    """Staff paid an owed refund back outside the provider (cash, bank transfer)."""
    with transaction.atomic():
        booking_id = Refund.objects.filter(pk=refund_id).values_list("booking_id", flat=True).get()
        selectors.locked_booking(booking_id)  # the booking first, then its refund
        owed = Refund.objects.select_for_update().get(pk=refund_id)
        if owed.method != Refund.Method.MANUAL or owed.status != RefundStatus.PENDING:
            raise DomainError(_("Only a refund owed by staff can be confirmed as paid back."))
        owed.status = RefundStatus.SUCCEEDED
        owed.save(update_fields=["status", "updated_at"])
        _recorded(owed)
        history.record(
            owed.booking,
            history.Kind.REFUND,
            history.said("Refund of {amount} paid back.", amount=history.eur(owed.amount_cents)),
            actor=actor,
        )
    return owed


# --- the provider's news ----------------------------------------------------------------------------


def apply_refund_news(state: RefundState, *, actor: str) -> Booking | None:
    """A refund.* event: record the refund or move its state forward. Call inside a transaction."""
    booking = ledger.locked_booking_for_payment(state.payment_intent_id, state.reference)
    if booking is None:
        logger.warning("Refund %s names no known booking", state.refund_id)
        return None
    _merge(booking, state, actor=actor)
    return booking


def apply_charge_news(
    charge: ChargeRefunds, *, provider: Callable[[], PaymentProvider], actor: str
) -> Booking | None:
    """A charge.refunded event: its refunds where listed; when its refunded total says more than we know
    (a refund made in the provider's dashboard, or its own event still on the way), the provider's list."""
    booking = ledger.locked_booking_for_payment(charge.payment_intent_id, None)
    if booking is None:
        logger.warning("Refunded charge of payment %s names no known booking", charge.payment_intent_id)
        return None
    for state in charge.refunds:
        _merge(booking, state, actor=actor)
    # what we know went back to this charge (a return trip's: for both rides), not money paid back by hand
    known = (
        Refund.objects.filter(
            booking__in=trips.legs(booking),
            method=Refund.Method.PROVIDER,
            status__in=COMMITTED,
            payment__payment_intent_id=charge.payment_intent_id,
        ).aggregate(total=Sum("amount_cents"))["total"]
        or 0
    )
    if charge.amount_refunded > known and charge.payment_intent_id:
        for state in provider().list_refunds(charge.payment_intent_id):
            _merge(booking, state, actor=actor)
    return booking


def _merge(booking: Booking, state: RefundState, *, actor: str) -> None:
    if state.status not in STAGE:
        logger.warning("Refund %s in an unknown state %r: ignored", state.refund_id, state.status)
        return
    known = Refund.objects.select_for_update().filter(provider_refund_id=state.refund_id).first()
    if known is not None and known.booking_id != booking.pk:  # the other ride of a return trip's payment
        booking = selectors.locked_booking(known.booking_id)
    if known is None:  # a refund we asked for and sent, made at the provider's dashboard meanwhile
        known = _adopted(booking, state)
    if known is None and not state.reference and ledger.rides_paid_by(state.payment_intent_id or "") > 1:
        logger.error("Refund %s of a return trip's payment names no ride: not recorded", state.refund_id)
        reason = (
            f"a refund of {_eur(state.amount_cents)} made at the provider on the payment of a return trip "
            f"names neither ride ({state.refund_id}): record it on the ride it is for"
        )
        booking_tasks.alert_operator.enqueue(booking.pk, reason, topic="Refund")
        return
    if known is None and (mismatch := _not_ours(booking, state)):
        logger.error("Refund %s for %s not recorded: %s", state.refund_id, booking.reference, mismatch)
        reason = f"a refund reported by the provider was not recorded, as {mismatch} ({state.refund_id})"
        booking_tasks.alert_operator.enqueue(booking.pk, reason, topic="Refund")
        return
    if known is None:
        known = Refund.objects.create(
            booking=booking,
            amount_cents=state.amount_cents,
            currency=state.currency.upper(),
            status=state.status,
            provider_refund_id=state.refund_id,
            payment=ledger.payment_of_intent(booking, state.payment_intent_id),
            reason="made at the payment provider",
            failure_reason=state.failure_reason or "",
            surcharge=paid_with(booking, state.payment_intent_id),
        )
        history.record(
            booking,
            history.Kind.REFUND,
            history.said(
                "Refund of {amount} ({refund}) reported by the provider: {state}.",
                amount=history.eur(state.amount_cents),
                refund=state.refund_id,
                state=history.refund_state(state.status),
            ),
            actor=actor,
        )
    elif state.status != known.status and STAGE[state.status] >= STAGE[RefundStatus(known.status)]:
        history.record(
            booking,
            history.Kind.REFUND,
            history.said(
                "Refund of {amount} ({refund}): {before} → {after}.",
                amount=history.eur(known.amount_cents),
                refund=state.refund_id,
                before=history.refund_state(known.status),
                after=history.refund_state(state.status),
            ),
            actor=actor,
        )
        known.status, known.failure_reason = state.status, state.failure_reason or known.failure_reason
        known.save(update_fields=["status", "failure_reason", "updated_at"])
    else:
        return  # a replay, or news older than what we know
    _recorded(known)
    if state.status == RefundStatus.FAILED:
        _alert_failed(booking, state)


def _alert_failed(booking: Booking, state: RefundState) -> None:
    reason = f"a refund of {_eur(state.amount_cents)} failed ({state.failure_reason or 'no reason given'})"
    booking_tasks.alert_operator.enqueue(booking.pk, reason, topic="Refund")


def _adopted(booking: Booking, state: RefundState) -> Refund | None:
    """A refund recorded here and still waiting to be sent, that the provider reports made (staff made it
    at the provider's dashboard): the same refund, not a second one."""
    waiting = booking.refunds.select_for_update().filter(
        method=Refund.Method.PROVIDER,
        status=RefundStatus.PENDING,
        provider_refund_id=None,
        payment=ledger.payment_of_intent(booking, state.payment_intent_id),
        amount_cents=state.amount_cents,
    )
    asked = waiting.order_by("pk").first()
    if asked is not None:
        asked.provider_refund_id = state.refund_id
        asked.save(update_fields=["provider_refund_id", "updated_at"])
    return asked


def _not_ours(booking: Booking, state: RefundState) -> str | None:
    """Why a refund the provider reports cannot be one of this booking's, or None when it can: its
    currency, and no more than was received and not yet given back."""
    if state.currency.upper() != booking.currency.upper():
        return f"it is in {state.currency.upper()}, the booking in {booking.currency}"
    left = refundable_cents(booking)
    if state.status in COMMITTED and state.amount_cents > left:
        return f"{_eur(state.amount_cents)} is more than the {_eur(left)} received and not yet refunded"
    return None


def _eur(cents: int) -> str:
    return f"{from_cents(cents)} {CURRENCY}"
