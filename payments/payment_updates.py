"""How payment news reaches a booking: provider webhooks, the sandbox's Pay button and reconciliation
all settle it under a row lock through booking.transitions, so a webhook and a success-page read cannot
race and every handler is idempotent (docs/decisions.md §9)."""

import hashlib
import logging
from collections.abc import Callable

from django.core.cache import cache
from django.core.cache.backends.locmem import LocMemCache
from django.db import IntegrityError, transaction
from django.utils import timezone
from django_tasks import task

from apikit.errors import DomainError
from booking import history, selectors, transitions, trips
from booking import tasks as booking_tasks
from booking.models import Booking, BookingStatus, PaymentMethod
from invoicing import invoices
from payments import ledger, refunds, surcharges
from payments import selectors as payment_selectors
from payments.models import Payment, ProcessedPaymentEvent, Surcharge
from payments.providers import payment_provider
from payments.providers.base import (
    PAID_PAYMENT_STATUSES,
    PaymentError,
    PaymentEvent,
    PaymentProvider,
    SessionState,
)

logger = logging.getLogger(__name__)

PROVIDER_NEWS = "payment provider (webhook)"
ASK_EVERY_SECONDS = 5
_asked_here = LocMemCache("payments-asked", {"OPTIONS": {"MAX_ENTRIES": 10_000}})


def target_status(event_type: str, session: SessionState) -> str | None:
    """The state an event asks for; None when it asks for nothing (e.g. an async payment still pending)."""
    if event_type == "checkout.session.completed":
        return BookingStatus.PAID if session.payment_status in PAID_PAYMENT_STATUSES else None
    return {
        "checkout.session.async_payment_succeeded": BookingStatus.PAID,
        "checkout.session.async_payment_failed": BookingStatus.PAYMENT_FAILED,
        "checkout.session.expired": BookingStatus.EXPIRED,
    }.get(event_type)


def apply_event(event: PaymentEvent, provider: Callable[[], PaymentProvider] | None = None) -> Booking | None:
    """Apply a provider event once (by event id). Unknown types and unknown bookings change nothing.
    `provider` answers questions the event leaves open (the refunds of a refunded charge); a failure to
    ask raises PaymentError and keeps nothing, so the provider delivers the event again."""
    with transaction.atomic():
        try:
            with transaction.atomic():  # a savepoint: a replay's failed insert must not end the transaction
                record = ProcessedPaymentEvent.objects.create(event_id=event.event_id, event_type=event.type)
        except IntegrityError:
            logger.info("Payment event %s already processed", event.event_id)
            return None
        booking = None
        if event.session is not None:
            booking = _apply_session_news(event, event.session)
        elif event.refund is not None:
            booking = refunds.apply_refund_news(event.refund, actor=PROVIDER_NEWS)
        elif event.charge is not None and provider is not None:
            booking = refunds.apply_charge_news(event.charge, provider=provider, actor=PROVIDER_NEWS)
        if booking is not None:
            record.booking = booking
            record.save(update_fields=["booking"])
        return booking


def _apply_session_news(event: PaymentEvent, session: SessionState) -> Booking | None:
    target = target_status(event.type, session)
    found = payment_selectors.surcharge_for_session(session.session_id)
    booking: Booking | None
    if found is not None:  # the payment page of a price difference, not of the booking itself
        booking = selectors.locked_booking(found.booking_id)  # the booking first, as staff's paths lock
        surcharge = payment_selectors.locked_surcharge_for_session(session.session_id)
        assert surcharge is not None  # noqa: S101  (found just now; a price difference is never deleted)
        paid = target == BookingStatus.PAID
        actor = surcharges.link_actor(surcharge)
        surcharges.apply_session_news(surcharge, booking, paid, session, actor=actor)
        return booking
    booking = payment_selectors.locked_booking_for_session(session.session_id, session.reference)
    if booking is None:
        logger.warning("Payment event %s names no known booking", event.event_id)
        return None
    if target is not None:
        _settle(booking, target, session)
    return booking


def reconcile(booking: Booking, provider: Callable[[], PaymentProvider]) -> Booking:
    """Ask the provider about a booking still waiting for payment (a late webhook loses nothing). If the
    provider cannot answer, the stored booking is what we know."""
    session_id = ledger.checkout_session(booking)
    if not _awaiting_payment(booking, session_id) or not session_id:  # awaiting payment: it has a session
        return booking
    if not _may_ask_now(session_id):
        return booking  # asked moments ago: a reloaded page must not become a stream of provider calls
    return _settle_by_provider(booking, lambda: provider().retrieve_session(session_id))


def abandon(booking: Booking, provider: Callable[[], PaymentProvider]) -> Booking:
    """The traveller cancelled on the checkout page: close that page at the provider, so nobody pays a
    booking they walked away from, and the booking expires. Money that arrived meanwhile pays it instead.
    If the provider cannot answer, the booking stays pending (`reconcile_payments` settles it later)."""
    session_id = ledger.checkout_session(booking)
    if not _awaiting_payment(booking, session_id) or not session_id:  # awaiting payment: it has a session
        return booking
    return _settle_by_provider(booking, lambda: provider().expire_session(session_id))


def close_checkout(booking_id: int, provider: Callable[[], PaymentProvider]) -> None:
    """A booking cancelled while its payment page was still open: close that page at the provider, so
    nobody pays for a cancelled ride. Money that arrived first is recorded and the operator alerted
    (`_settle`); if the provider cannot answer, `reconcile_payments` hears of a late payment instead."""
    booking = Booking.objects.get(pk=booking_id)
    session_id = ledger.checkout_session(booking)
    if session_id and not booking.money_received:
        _settle_by_provider(booking, lambda: provider().expire_session(session_id))


def _awaiting_payment(booking: Booking, session_id: str | None) -> bool:
    return booking.status == BookingStatus.PENDING_PAYMENT and bool(session_id)


def _settle_by_provider(booking: Booking, ask: Callable[[], SessionState]) -> Booking:
    try:
        session = ask()
    except PaymentError:
        logger.warning("The payment provider did not answer about %s; it stays as it is", booking.reference)
        return booking
    return _apply_session(booking, session)


def _apply_session(booking: Booking, session: SessionState) -> Booking:
    """Settle a booking by what the provider says of its session: paid, expired, or (still open) nothing."""
    target = BookingStatus.PAID if session.payment_status in PAID_PAYMENT_STATUSES else None
    if session.status == "expired" and target is None:
        target = BookingStatus.EXPIRED
    with transaction.atomic():
        locked = selectors.locked_booking(booking.pk)
        if target is not None:
            _settle(locked, target, session)
    return locked


def reconcile_surcharge(surcharge: Surcharge, provider: Callable[[], PaymentProvider]) -> bool:
    """Ask the provider about the payment page of a price difference still unpaid; whether it was paid."""
    page = surcharge.provider_session_id  # one query: each read of the property asks its payment
    assert page is not None  # noqa: S101  (unpaid_surcharges_since lists pages)
    try:
        session = provider().retrieve_session(page)
    except PaymentError:
        logger.warning("Could not reconcile the price difference of %s", surcharge.booking.reference)
        return False
    return surcharges.apply_if_paid(surcharge, session)


def _may_ask_now(session_id: str) -> bool:
    """At most one question about a session every ASK_EVERY_SECONDS, across all workers (shared cache);
    while the shared cache is away, at most one per process (so reloads never become a stream of calls)."""
    key = "payments:asked:" + hashlib.sha256(session_id.encode()).hexdigest()
    try:
        return cache.add(key, True, ASK_EVERY_SECONDS)
    except Exception:  # the cache's own errors differ by backend
        logger.warning("Shared cache unavailable; throttling provider questions per process")
        return _asked_here.add(key, True, ASK_EVERY_SECONDS)


def _settle(booking: Booking, target: str, session: SessionState) -> None:
    """Move a locked booking (with a return trip's other ride: one page pays both); paid is never undone,
    and the confirmation is queued once, after commit. Only the booking's own session, charging exactly its
    price, can move it; news that its page ended without money ends that payment in the ledger, whatever
    the booking's state."""
    page = ledger.checkout_of(booking)
    own = page is not None and session.session_id == page.provider_session_id
    if own and target in (BookingStatus.EXPIRED, BookingStatus.PAYMENT_FAILED):
        ledger.checkout_closed(session.session_id, failed=target == BookingStatus.PAYMENT_FAILED)
    if booking.status == target:
        if target == BookingStatus.PAID and own and booking.payment_method != PaymentMethod.CHECKOUT:
            reason = (
                f"it was paid online after staff marked it paid by {booking.get_payment_method_display()}"
            )
            _foreign_payment(booking, session, reason)
        return  # a replay
    if not own:
        if target == BookingStatus.PAID:
            _foreign_payment(
                booking, session, f"checkout session {session.session_id} is not the booking's own"
            )
        return
    rides = trips.locked_legs(booking)
    if target == BookingStatus.PAID and (mismatch := _amount_mismatch(rides, session)):
        _foreign_payment(booking, session, mismatch)
        return
    # a return trip is paid as a whole: one ride staff cancelled meanwhile makes it money paid too late
    moving = rides if target == BookingStatus.PAID else [booking]
    if not all(transitions.can_move(ride, target) for ride in moving):
        if target == BookingStatus.PAID and not booking.money_received:
            _paid_too_late(rides, session)  # e.g. cancelled by staff while the checkout page was open
        return  # news older than what we know: expired after paid does not unpay
    actor = provider_actor(booking)
    if target == BookingStatus.PAID:
        move_to_paid(rides, actor=actor, session=session)
        return
    for ride in rides:
        if transitions.can_move(ride, target):
            transitions.apply(ride, target, actor=actor)


def move_to_paid(rides: list[Booking], *, actor: str, session: SessionState | None = None, user=None) -> None:
    """Locked rides (a booking, or a return trip's two) are paid: their price received (through the
    provider's `session`, else taken by staff) and their invoice, in the same transaction: no payment
    without its invoice, no invoice without it. A ride on account has none of its own: its company's
    collective invoice lists it, and nothing is received."""
    for ride in rides:
        transitions.apply(ride, BookingStatus.PAID, actor=actor)
    if rides[0].payment_method != PaymentMethod.ACCOUNT:
        _received_price(rides, trips.price_cents(rides), session=session, user=user)
        invoices.issue(*rides)  # a return trip's one invoice lists both rides


def _received_price(rides: list[Booking], amount_cents: int, *, session: SessionState | None, user) -> None:
    """Money received for the rides' prices: through their payment page (its shares say each ride's part),
    or taken by staff, a payment for each ride."""
    if session is None:
        for ride in rides:
            ledger.record_received(
                ride, ride.amount_cents, kind=Payment.Kind.STAFF, recorded_by=user, at=ride.paid_at
            )
        return
    booking = rides[0]
    page = ledger.checkout_of(booking)  # the session is its own (`_settle`)
    ledger.record_received(
        booking,
        amount_cents,
        kind=Payment.Kind.CHECKOUT,
        provider=page.provider if page else "",
        session_id=session.session_id,
        payment_intent_id=session.payment_intent_id or "",
        at=booking.paid_at,
    )


def mark_paid(pk: int, *, method: str, user, actor: str) -> Booking:
    """Staff took the money outside the provider (an invoice, cash): the booking is paid, by whom and when
    is kept, and the confirmation goes out as for an online payment. A payment page still open stops
    waiting and is closed at the provider by a job, so it cannot take the money a second time."""
    with transaction.atomic():
        booking = selectors.locked_booking(pk)
        # An unpaid return trip is paid as a whole: its two rides share one payment page.
        rides = trips.locked_legs(booking) if booking.status == BookingStatus.PENDING_PAYMENT else [booking]
        # The method first: a booking that waited on account (its link unused) is paid now like any other,
        # money received and invoiced, not left at nothing received for a collective invoice never listing it.
        for ride in rides:
            ride.payment_method = method
        page = ledger.checkout_of(booking)
        move_to_paid(rides, actor=actor, user=user)
        for ride in rides:
            ride.save(update_fields=["payment_method", "updated_at"])
        if page is not None and page.state == Payment.State.PENDING:
            ledger.checkout_closed(page.provider_session_id or "", failed=False)
            close_page_paid_by_staff.enqueue(booking.pk)
    return booking


@task()
def close_page_paid_by_staff(booking_id: int) -> None:
    """Close the payment page of a booking staff marked paid. Money the page took first is the operator's
    to give back (`_settle` alerts); if the provider cannot answer, its webhook tells the same later."""
    booking = Booking.objects.get(pk=booking_id)
    session_id = ledger.checkout_session(booking)
    if session_id:
        _settle_by_provider(booking, lambda: payment_provider().expire_session(session_id))


def provider_actor(booking: Booking) -> str:
    """Who moved a booking on the provider's news, as its history says: the provider of its payment page."""
    page = ledger.checkout_of(booking)
    return f"payment provider ({page.provider if page else ''})"


def _amount_mismatch(rides: list[Booking], session: SessionState) -> str | None:
    """Why a payment does not pay the rides' price (a booking's, or a return trip's two), or None when it
    does."""
    price = trips.price_cents(rides)
    charged = (session.amount_total, (session.currency or "").lower())
    if charged != (price, rides[0].currency.lower()):
        return (
            f"the session charged {session.amount_total} {session.currency}, the booking's price is "
            f"{price} {rides[0].currency.lower()} (cents)"
        )
    return None


def _foreign_payment(booking: Booking, session: SessionState, mismatch: str) -> None:
    """A payment that names this booking but does not pay it: kept in the log and the processed event,
    the booking stays as it is, and the operator checks it with the provider."""
    logger.error("Payment for booking %s not applied: %s", booking.reference, mismatch)
    reason = f"it was not applied, as {mismatch} (payment intent {session.payment_intent_id or '-'})"
    booking_tasks.alert_operator.enqueue(booking.pk, reason)


def _paid_too_late(rides: list[Booking], session: SessionState) -> None:
    """Money arrived for rides that can no longer be paid (a booking, or a return trip's two): keep the fact;
    a cancelled ride's money goes back through the provider by itself (a job), anything else the operator
    decides."""
    for ride in rides:
        ride.paid_at = timezone.now()
        ride.save(update_fields=["paid_at", "updated_at"])
    received = session.amount_total or trips.price_cents(rides)
    _received_price(rides, received, session=session, user=None)
    for booking in rides:
        if booking.status == BookingStatus.CANCELLED:
            logger.warning("Payment received for cancelled booking %s: it goes back", booking.reference)
            history.record(
                booking,
                history.Kind.PAYMENT,
                history.said(
                    "Paid {amount} after it was cancelled: it goes back through the payment provider.",
                    amount=history.eur(ledger.received_cents(booking)),
                ),
                actor=provider_actor(booking),
            )
            give_back_late_payment.enqueue(booking.pk)
            continue
        logger.error(
            "Payment received for %s booking %s: refund or reinstate it", booking.status, booking.reference
        )
        booking_tasks.alert_operator.enqueue(
            booking.pk, "the booking can no longer be paid: refund or reinstate it"
        )


LATE_PAYMENT_REFUND = "Paid after the booking was cancelled: given back."


@task()
def give_back_late_payment(booking_id: int) -> None:
    """Give back what a cancelled booking received after its cancellation, beyond its cancellation fee (a
    job; a provider failure is tried again). A booking staff reinstated meanwhile keeps its money; one
    the provider cannot refund (another provider) is the operator's, alerted."""
    with transaction.atomic():
        booking = selectors.locked_booking(booking_id)
        back = refunds.refundable_cents(booking) - (booking.cancellation_fee_cents or 0)
        if booking.status != BookingStatus.CANCELLED or back <= 0:
            return
        try:
            with transaction.atomic():
                refunds.refund(booking, back, reason=LATE_PAYMENT_REFUND, actor=provider_actor(booking))
        except PaymentError:
            raise  # the provider did not answer: the queue tries again
        except DomainError as refusal:
            booking_tasks.alert_operator.enqueue(
                booking.pk,
                f"it was paid after its cancellation and the money cannot go back by itself ({refusal}): "
                "refund it on the booking's page",
                topic="Refund",
            )
