"""Price differences a customer owes after staff changed the ride: a payment link (the provider's hosted
checkout, e-mailed to the customer) whose payment arrives like any other provider news, or money staff
collected themselves and confirm. Either adds to what the booking has received."""

import logging
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Sum
from django.utils.translation import gettext_lazy as _
from django_tasks import task

from apikit.errors import DomainError
from booking import history, links, selectors
from booking import tasks as booking_tasks
from booking.models import Booking, PaymentMethod
from invoicing import collective_invoices, invoices
from invoicing.models import Invoice
from payments import ledger, priced_lines, refunds
from payments import selectors as payment_selectors
from payments.models import Payment, Refund, Surcharge
from payments.providers import payment_provider
from payments.providers.base import PAID_PAYMENT_STATUSES, CheckoutRequest, PaymentError, SessionState
from pricing.money import CURRENCY, from_cents

logger = logging.getLogger(__name__)


def request_payment(
    booking: Booking, amount_cents: int, *, actor: str, user=None, price_before_cents: int | None = None
) -> Surcharge:
    """Open a payment page for the difference and e-mail it, saying why (after the commit). Call with the
    booking row-locked; a provider failure raises PaymentError and the caller's transaction keeps nothing.
    `price_before_cents`: the price before the change (the booking holds the new one)."""
    details = {
        "price_after": booking.amount_cents,
        "paid": ledger.received_cents(booking),
        **invoices.reason_by_hand(booking),
    }
    if price_before_cents is not None:
        details["price_before"] = price_before_cents
    surcharge = Surcharge.objects.create(
        booking=booking,
        amount_cents=amount_cents,
        currency=booking.currency,
        created_by=user,
        details=details,
    )
    url = open_page(booking, surcharge)
    history.record(
        booking,
        history.Kind.PAYMENT,
        history.said("Payment link for the difference of {amount} sent.", amount=history.eur(amount_cents)),
        actor=actor,
    )
    booking_tasks.send_payment_link.enqueue(booking.pk, url, str(from_cents(amount_cents)), surcharge.pk)
    return surcharge


DESCRIPTIONS = {
    Surcharge.Reason.CHANGE: "price difference after a change",
    Surcharge.Reason.WAITING: "waiting time beyond what was included",
    Surcharge.Reason.NO_SHOW: "no-show fee",
}


def open_page(booking: Booking, surcharge: Surcharge) -> str:
    """The provider's payment page for what `surcharge` asks (booking row-locked): its address. The same
    surcharge asked again is the same page at the provider (a retry after a timeout)."""
    page, provider = links.manage_url(booking.reference), payment_provider()
    session = provider.create_checkout_session(
        CheckoutRequest(
            reference=booking.reference,
            amount_cents=surcharge.amount_cents,
            currency=booking.currency.lower(),
            description=f"{booking.reference}: {DESCRIPTIONS[Surcharge.Reason(surcharge.reason)]}",
            customer_email=booking.email or None,
            locale=booking.locale,
            success_url=page,
            cancel_url=page,
            idempotency_key=f"surcharge-{surcharge.pk}",
        )
    )
    surcharge.payment_url = session.url
    surcharge.save(update_fields=["payment_url"])
    ledger.link_opened(booking, surcharge, provider=provider.name, session_id=session.session_id)
    return session.url


def owe(
    booking: Booking, amount_cents: int, *, reason: str, online: bool, actor: str, details: dict | None = None
) -> Surcharge:
    """Record what the customer owes after the ride (booking row-locked), without calling anyone: `online`,
    a payment page is opened for it later (payments/after_ride.py); else staff collect it or waive it.
    `details`: why (the minutes waited, the no-show fee's terms), for the traveller's page."""
    surcharge = Surcharge.objects.create(
        booking=booking,
        amount_cents=amount_cents,
        currency=booking.currency,
        reason=reason,
        method=Refund.Method.PROVIDER if online else Refund.Method.MANUAL,
        details=details or {},
    )
    what, amount = history.surcharge_reason(reason), history.eur(amount_cents)
    owed = (
        history.said("Owed for {what}: {amount}; a payment link follows by e-mail.", what=what, amount=amount)
        if online
        else history.said("Owed for {what}: {amount}; to be collected by staff.", what=what, amount=amount)
    )
    history.record(booking, history.Kind.PAYMENT, owed, actor=actor)
    if (billed := collective_invoices.billed_on(booking)) is not None:  # too late for it: never on it
        late = "Owed after the collective invoice {number} was issued: not on it; invoice it by hand."
        history.record(booking, history.Kind.PAYMENT, history.said(late, number=billed.number), actor=actor)
        booking_tasks.alert_operator.enqueue(
            booking.pk,
            f"{what} owed after the collective invoice {billed.number} was issued: invoice it by hand",
        )
    return surcharge


def collect(booking_id: int, surcharge_id: int, *, actor: str, user=None) -> Surcharge:
    """Staff collected an owed amount themselves (cash, card terminal, invoice). Only one without a payment
    page: money for a page goes through the provider's news."""
    with transaction.atomic():
        booking = selectors.locked_booking(booking_id)
        owed = _pending(booking, surcharge_id)
        if booking.payment_method == PaymentMethod.ACCOUNT:  # money beside it would be billed twice
            raise DomainError(_("A ride on account owes this on its company's collective invoice."))
        if owed.provider_session_id:
            raise DomainError(
                _("This amount has a payment link: wait for the payment, or waive it and collect it anew.")
            )
        owed.status, owed.method = Surcharge.Status.PAID, Refund.Method.MANUAL
        owed.created_by = owed.created_by or user
        owed.save(update_fields=["status", "method", "created_by"])
        collected = history.said(
            "Collected by staff for {what}: {amount}.",
            what=history.surcharge_reason(owed.reason),
            amount=history.eur(owed.amount_cents),
        )
        _collected(booking, owed, collected, actor=actor, user=user)
    return owed


def waive(booking_id: int, surcharge_id: int, *, actor: str) -> Surcharge:
    """Staff let an open amount go; its payment page, if any, is closed after the commit."""
    with transaction.atomic():
        booking = selectors.locked_booking(booking_id)
        owed = _pending(booking, surcharge_id)
        _waive(booking, owed, actor=actor, because=None)
    return owed


RIDE_CHARGES = (Surcharge.Reason.WAITING, Surcharge.Reason.NO_SHOW)


@dataclass(frozen=True)
class Billed:
    """What `bill` did for a cause: what was kept of it before, what it asks now, what it withdrew (open
    amounts), and what goes back."""

    kept_cents: int
    owed_cents: int
    withdrawn_cents: int
    back_cents: int
    back_by_staff_cents: int

    @property
    def changed(self) -> bool:
        return bool(self.owed_cents or self.withdrawn_cents or self.back_cents)


def kept_cents(booking: Booking, reason: str) -> int:
    """What the traveller paid for a cause and keeps paid: its paid amounts less what went, or is on its
    way, back for them (a query over the ledger: surcharges and their refunds)."""
    paid = booking.surcharges.filter(reason=reason, status=Surcharge.Status.PAID)
    return (paid.aggregate(total=Sum("amount_cents"))["total"] or 0) - _returned_cents(paid)


def _returned_cents(paid) -> int:
    back = Refund.objects.filter(surcharge__in=paid, status__in=refunds.COMMITTED)
    return back.aggregate(total=Sum("amount_cents"))["total"] or 0


def bill(
    booking: Booking,
    reason: str,
    due_cents: int,
    *,
    online: bool,
    actor: str,
    because: history.Said,
    details: dict | None = None,
) -> Billed:
    """Bring what a cause charges to `due_cents` (booking row-locked): one charge per cause, never a second
    full one. What is asked or paid for it already counts; an open amount that no longer fits is withdrawn
    and the difference asked anew; what was paid beyond `due_cents` goes back (`refunds.give_back_charge`:
    through the provider by a job, or owed by staff, alerted)."""
    open_charges = list(
        booking.surcharges.select_for_update().filter(reason=reason, status=Surcharge.Status.PENDING)
    )
    kept = kept_cents(booking, reason)
    if kept + sum(owed.amount_cents for owed in open_charges) == due_cents:
        return Billed(kept, 0, 0, 0, 0)
    withdrawn = 0
    for owed in open_charges:
        _waive(booking, owed, actor=actor, because=because)
        withdrawn += owed.amount_cents
    owed_cents = max(0, due_cents - kept)
    if owed_cents:
        owe(booking, owed_cents, reason=reason, online=online, actor=actor, details=details)
    back = by_staff = 0
    for paid in (
        booking.surcharges.select_for_update(of=("self",))  # its payment is joined only to order them
        .filter(reason=reason, status=Surcharge.Status.PAID)
        .order_by("-payment__received_at", "-pk")
    ):
        if kept - back <= due_cents:
            break
        piece = min(paid.amount_cents - _returned_cents([paid]), kept - back - due_cents)
        if piece <= 0:
            continue
        made = refunds.give_back_charge(booking, paid, piece, reason=_sentence(because), actor=actor)
        back += piece
        by_staff += piece if made.method == Refund.Method.MANUAL else 0
    return Billed(kept, owed_cents, withdrawn, back, by_staff)


def _sentence(because: history.Said) -> str:
    text = str(because)
    return f"{text[:1].upper()}{text[1:]}."


def withdraw_ride_charges(booking: Booking, *, actor: str, because: history.Said) -> list[Billed]:
    """Staff undid the move that ended the ride: what it charged (waiting, a no-show fee) is withdrawn where
    open and given back where paid; price differences of changes stay. Booking row-locked."""
    return [bill(booking, reason, 0, online=False, actor=actor, because=because) for reason in RIDE_CHARGES]


def _pending(booking: Booking, surcharge_id: int) -> Surcharge:
    owed = booking.surcharges.select_for_update().filter(pk=surcharge_id).first()
    if owed is None or owed.status != Surcharge.Status.PENDING:
        raise DomainError(_("Only an amount still open can be collected or waived."))
    if billed := collective_invoices.billed_refusal(booking):  # the company is billed for it already
        raise DomainError(billed)
    return owed


def _waive(booking: Booking, owed: Surcharge, *, actor: str, because: history.Said | None) -> None:
    owed.status = Surcharge.Status.WAIVED
    owed.save(update_fields=["status"])
    what, amount = history.surcharge_reason(owed.reason), history.eur(owed.amount_cents)
    waived = (
        history.said("Waived ({what}): {amount}; {because}.", what=what, amount=amount, because=because)
        if because
        else history.said("Waived ({what}): {amount}.", what=what, amount=amount)
    )
    history.record(booking, history.Kind.PAYMENT, waived, actor=actor)
    ledger.link_withdrawn(owed)
    if owed.provider_session_id:
        close_surcharge_page.enqueue(owed.pk)


def record_paid(booking: Booking, amount_cents: int, *, actor: str, user=None) -> Surcharge:
    """Staff collected the difference themselves (cash, card terminal, invoice). Booking row-locked."""
    surcharge = Surcharge.objects.create(
        booking=booking,
        amount_cents=amount_cents,
        currency=booking.currency,
        status=Surcharge.Status.PAID,
        method=Refund.Method.MANUAL,
        created_by=user,
        details=invoices.reason_by_hand(booking),
    )
    collected = history.said("Difference of {amount} collected by staff.", amount=history.eur(amount_cents))
    _collected(booking, surcharge, collected, actor=actor, user=user)
    return surcharge


def open_cents(booking: Booking) -> int:
    """What the booking's unpaid payment links ask (`waive_open` would withdraw them)."""
    return sum(
        booking.surcharges.filter(status=Surcharge.Status.PENDING).values_list("amount_cents", flat=True)
    )


def waive_open(booking: Booking, *, actor: str) -> int:
    """Void the booking's unpaid payment links (booking row-locked): a later change or a cancellation
    settles from what was really received, so no old link may still be paid. Their pages are closed at the
    provider after the commit. Returns the cents waived."""
    waived = 0
    for surcharge in booking.surcharges.select_for_update().filter(status=Surcharge.Status.PENDING):
        surcharge.status = Surcharge.Status.WAIVED
        surcharge.save(update_fields=["status"])
        ledger.link_withdrawn(surcharge)
        waived += surcharge.amount_cents
        history.record(
            booking,
            history.Kind.PAYMENT,
            history.said("Payment link for {amount} withdrawn.", amount=history.eur(surcharge.amount_cents)),
            actor=actor,
        )
        if surcharge.provider_session_id:
            close_surcharge_page.enqueue(surcharge.pk)
    return waived


@task()
def close_surcharge_page(surcharge_id: int) -> None:
    close_page(surcharge_id)


def close_page(surcharge_id: int) -> None:
    """Close a withdrawn link's page at the provider. Money that arrived first is applied like any late
    payment (given back); if the provider cannot answer, its webhook or `reconcile_payments` tells later."""
    surcharge = Surcharge.objects.get(pk=surcharge_id)
    page = surcharge.provider_session_id  # one query: each read of the property asks its payment
    assert page is not None  # noqa: S101  (enqueued only for a link with a page)
    try:
        session = payment_provider().expire_session(page)
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
        page = surcharge.provider_session_id
        assert page is not None  # noqa: S101  (a page's news: the link has one)
        locked = payment_selectors.locked_surcharge_for_session(page)
        assert locked is not None  # noqa: S101  (the same row, locked)
        apply_session_news(locked, booking, True, session, actor=link_actor(locked))
    return True


def link_actor(surcharge: Surcharge) -> str:
    """Who acts on a link's news, as the booking's history says: the provider that opened its page."""
    return f"payment provider ({_link_provider(surcharge)})"


def _link_provider(surcharge: Surcharge) -> str:
    """The provider of the link's waiting payment; without one, the active provider, whose news it is."""
    payment = Payment.objects.filter(surcharge=surcharge).first()
    return payment.provider if payment else payment_provider().name


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
    ledger.record_received(
        booking,
        surcharge.amount_cents,
        kind=Payment.Kind.LINK,
        provider=_link_provider(surcharge),
        session_id=session.session_id,
        payment_intent_id=session.payment_intent_id or "",
        surcharge=surcharge,
    )
    if owed:
        surcharge.status = Surcharge.Status.PAID
        surcharge.save(update_fields=["status"])
        supplementary_invoice(booking, surcharge)
    paid_online = history.said(
        "Difference of {amount} paid online.", amount=history.eur(surcharge.amount_cents)
    )
    history.record(booking, history.Kind.PAYMENT, paid_online, actor=actor)
    if not owed:
        _give_back(booking, surcharge, actor=actor)


def _give_back(booking: Booking, surcharge: Surcharge, *, actor: str) -> None:
    """Money that arrived through a withdrawn link, or for a ride no longer on: refunded through the
    provider; if the provider refuses, the operator is told to do it."""
    try:
        with transaction.atomic():
            refunds.refund(
                booking,
                surcharge.amount_cents,
                actor=actor,
                reason="Paid through a withdrawn payment link: given back.",
            )
    except DomainError as error:
        reason = (
            f"{_eur(surcharge.amount_cents)} arrived through a withdrawn payment link and could not be "
            f"given back ({error})"
        )
        logger.error("%s: %s", booking.reference, reason)
        booking_tasks.alert_operator.enqueue(booking.pk, reason, topic="Refund")


def _collected(booking: Booking, surcharge: Surcharge, text: history.Said, *, actor: str, user) -> None:
    """Staff took a price difference themselves: received, in the ledger, then invoiced."""
    ledger.record_received(
        booking, surcharge.amount_cents, kind=Payment.Kind.STAFF, surcharge=surcharge, recorded_by=user
    )
    supplementary_invoice(booking, surcharge)
    history.record(booking, history.Kind.PAYMENT, text, actor=actor)


def _eur(cents: int) -> str:
    return f"{from_cents(cents)} {CURRENCY}"


def supplementary_invoice(booking: Booking, surcharge: Surcharge) -> Invoice | None:
    """The supplementary invoice of a charge once it is paid (invoicing/invoices.py), in the caller's
    transaction with the booking row-locked; None for one not paid."""
    if surcharge.status != Surcharge.Status.PAID:
        return None
    return invoices.issue_supplementary(booking, priced_lines.charge(surcharge))
