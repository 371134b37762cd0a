"""The ledger: where a payment is recorded and what a booking received, holds and may give back. Money in
is a `Payment` row with its state, carrying its bookings through `PaymentShare`; money out is a `Refund`
row pointing at the payment it returns. A provider's payment page is a payment from the moment it opens
(pending), and the provider's news moves that row: the booking keeps no provider ids. Every writer holds
the booking row-locked first, then its money rows (`locked_booking_for_payment`, `record_received`)."""

from datetime import datetime

from django.db.models import OuterRef, Sum
from django.utils import timezone

from booking import selectors, trips
from booking.models import Booking
from payments.models import Payment, PaymentShare, RefundStatus, Surcharge

# Money promised back: it can no longer be refunded a second time.
COMMITTED = (RefundStatus.PENDING, RefundStatus.REQUIRES_ACTION, RefundStatus.SUCCEEDED)


def record_received(
    booking: Booking,
    amount_cents: int,
    *,
    kind: str,
    provider: str = "",
    session_id: str | None = None,
    payment_intent_id: str = "",
    surcharge: Surcharge | None = None,
    recorded_by=None,
    at: datetime | None = None,
) -> Payment:
    """Money received for one booking the caller holds row-locked (inside its transaction). A payment page
    waiting for its money (`checkout_opened`, `link_opened`) is that payment, now received."""
    waiting = _waiting(surcharge, session_id)
    if waiting is not None:
        waiting.state, waiting.received_at = Payment.State.RECEIVED, at or timezone.now()
        waiting.kind, waiting.provider, waiting.payment_intent_id = kind, provider, payment_intent_id
        waiting.recorded_by = recorded_by
        if waiting.amount_cents != amount_cents:  # what arrived counts, not what the page asked
            waiting.amount_cents = amount_cents
            waiting.shares.filter(booking=booking).update(amount_cents=amount_cents)
        waiting.save(
            update_fields=[
                "state",
                "received_at",
                "kind",
                "provider",
                "payment_intent_id",
                "recorded_by",
                "amount_cents",
            ]
        )
        return waiting
    payment = Payment.objects.create(
        kind=kind,
        state=Payment.State.RECEIVED,
        provider=provider,
        provider_session_id=session_id or None,
        payment_intent_id=payment_intent_id,
        amount_cents=amount_cents,
        currency=booking.currency,
        surcharge=surcharge,
        recorded_by=recorded_by,
        received_at=at or timezone.now(),
    )
    PaymentShare.objects.create(payment=payment, booking=booking, amount_cents=amount_cents)
    return payment


def _waiting(surcharge: Surcharge | None, session_id: str | None) -> Payment | None:
    """The payment a price difference's link or a payment page opened for this money, row-locked."""
    if surcharge is not None:
        return Payment.objects.select_for_update().filter(surcharge=surcharge).first()
    if session_id:
        return Payment.objects.select_for_update().filter(provider_session_id=session_id).first()
    return None


def checkout_opened(rides: list[Booking], *, provider: str, session_id: str) -> Payment:
    """The payment page of a booking, or of a return trip's two rides, was opened (rides row-locked): its
    payment waits for the money, with the provider's session and a share for each ride. The same page again
    (the provider's answer to a retry) is the same payment."""
    return _page_opened(
        [(ride, ride.amount_cents) for ride in rides],
        {"provider_session_id": session_id},
        kind=Payment.Kind.CHECKOUT,
        provider=provider,
        amount_cents=trips.price_cents(rides),
        currency=rides[0].currency,
    )


def _page_opened(shares: list[tuple[Booking, int]], found_by: dict, **waiting) -> Payment:
    waiting = {**found_by, **waiting, "state": Payment.State.PENDING}
    payment, made = Payment.objects.get_or_create(**found_by, defaults=waiting)
    if made:
        PaymentShare.objects.bulk_create(
            PaymentShare(payment=payment, booking=booking, amount_cents=cents) for booking, cents in shares
        )
    return payment


def checkout_pages(**lookups):
    """Bookings' own payment pages (not a price difference's link), in any state."""
    return Payment.objects.filter(
        kind=Payment.Kind.CHECKOUT, surcharge__isnull=True, provider_session_id__isnull=False, **lookups
    )


def checkout_of(booking: Booking) -> Payment | None:
    """The booking's own payment page (its newest, in any state); None for a booking never given one (on
    account, cash, invoice, or the provider failed at checkout)."""
    return checkout_pages(shares__booking=booking).order_by("-created_at", "-pk").first()


def checkout_session(booking: Booking) -> str | None:
    """The provider's session of the booking's own payment page, if it was given one."""
    payment = checkout_of(booking)
    return payment.provider_session_id if payment else None


def checkout_closed(session_id: str, *, failed: bool) -> None:
    """A booking's payment page ended without money (expired, closed, or its payment failed): its payment
    no longer waits. Money that still arrives through it is received all the same."""
    Payment.objects.filter(provider_session_id=session_id, state=Payment.State.PENDING).update(
        state=Payment.State.FAILED if failed else Payment.State.CANCELLED
    )


def link_opened(booking: Booking, surcharge: Surcharge, *, provider: str, session_id: str) -> Payment:
    """A price difference's payment page was opened (booking row-locked): its payment waits for the
    money. The same page opened again (a retry) is the same payment."""
    return _page_opened(
        [(booking, surcharge.amount_cents)],
        {"surcharge": surcharge},
        kind=Payment.Kind.LINK,
        provider=provider,
        provider_session_id=session_id,
        amount_cents=surcharge.amount_cents,
        currency=surcharge.currency,
    )


def link_withdrawn(surcharge: Surcharge) -> None:
    """A price difference's link was withdrawn: its payment no longer waits (money that still arrives
    through it is received all the same, and given back)."""
    Payment.objects.filter(surcharge=surcharge, state=Payment.State.PENDING).update(
        state=Payment.State.CANCELLED
    )


def received_shares(booking: Booking):
    """The booking's shares of received payments, newest first."""
    return (
        PaymentShare.objects.filter(booking=booking, payment__state=Payment.State.RECEIVED)
        .select_related("payment")
        .order_by("-payment__received_at", "-payment__pk")
    )


def shares_of(booking: Booking):
    """Every payment carrying the booking (waiting, received, cancelled), oldest first, as staff read them."""
    return (
        PaymentShare.objects.filter(booking=booking)
        .select_related("payment__recorded_by")
        .order_by("payment__created_at", "payment__pk")
    )


def received_cents(booking: Booking, *, on_account: bool = True) -> int:
    """What the booking received: its shares of received payments (without its company's payments on
    account when `on_account` is False); from its prefetched shares (with their payments) when a list of
    bookings came with them (booking/listing.py), so a list costs one query."""
    prefetched = getattr(booking, "_prefetched_objects_cache", {}).get("payment_shares")
    if prefetched is not None:
        return sum(
            share.amount_cents
            for share in prefetched
            if share.payment.state == Payment.State.RECEIVED
            and (on_account or share.payment.kind != Payment.Kind.ACCOUNT)
        )
    shares = PaymentShare.objects.filter(booking=booking, payment__state=Payment.State.RECEIVED)
    if not on_account:
        shares = _not_on_account(shares)
    return shares.aggregate(total=Sum("amount_cents"))["total"] or 0


def own_payment(booking: Booking) -> Payment | None:
    """The payment of the booking's own price (its checkout, or staff's "paid"), not a price difference's
    nor its company's payment on account."""
    share = _not_on_account(received_shares(booking)).filter(payment__surcharge__isnull=True).last()
    return share.payment if share else None


def own_received():
    """For a query over bookings: what each received for its own price (not for a price difference). A
    company's payment on account is not counted: the reports book it on its own, on the day it arrived."""
    return (
        _not_on_account(
            PaymentShare.objects.filter(
                booking=OuterRef("pk"), payment__state=Payment.State.RECEIVED, payment__surcharge__isnull=True
            )
        )
        .values("booking")
        .annotate(cents=Sum("amount_cents"))
        .values("cents")
    )


def _not_on_account(shares):
    """Shares of money a booking's refund may give back: a company's payment on account pays its collective
    invoice, and what goes back of that is the invoice's business (a credit), not one ride's refund."""
    return shares.exclude(payment__kind=Payment.Kind.ACCOUNT)


def refundable_cents(booking: Booking) -> int:
    """What was received for a booking (not on account) and not yet promised back."""
    held = received_cents(booking, on_account=False)
    return max(0, held - selectors.refunds_total(booking, COMMITTED))


def open_payments(booking: Booking, *, provider_only: bool) -> list[tuple[Payment, int]]:
    """The booking's received payments, newest first, with what of each is not yet promised back:
    (payment, cents). A refund goes back to the payment it came with."""
    shares = list(_not_on_account(received_shares(booking)))
    back: dict[int, int] = {}
    for payment_id, cents in booking.refunds.filter(status__in=COMMITTED, payment__isnull=False).values_list(
        "payment_id", "amount_cents"
    ):
        back[payment_id] = back.get(payment_id, 0) + cents
    return [
        (share.payment, share.amount_cents - back.get(share.payment_id, 0))
        for share in shares
        if share.amount_cents > back.get(share.payment_id, 0)
        and (not provider_only or through_provider(share.payment))
    ]


def through_provider(payment: Payment) -> bool:
    """Whether a payment came through the payment provider (it can go back the same way)."""
    return payment.kind != Payment.Kind.STAFF and bool(payment.payment_intent_id)


def given_back_to(booking: Booking, cents: int) -> list[tuple[Payment | None, int]]:
    """Where money given back outside the provider comes from: the newest payment still holding all of it,
    else the payments newest first, each up to what it holds; (payment, cents) pieces. None: money the
    ledger does not hold (never, as a refund asks no more than was received)."""
    holding = open_payments(booking, provider_only=False)
    whole = next((payment for payment, open_cents in holding if open_cents >= cents), None)
    if whole is not None:
        return [(whole, cents)]
    pieces: list[tuple[Payment | None, int]] = []
    for payment, open_cents in holding:
        piece = min(cents, open_cents)
        pieces.append((payment, piece))
        cents -= piece
        if not cents:
            return pieces
    return [*pieces, (None, cents)]


def payment_of_intent(booking: Booking, intent: str | None) -> Payment | None:
    if not intent:
        return None
    share = received_shares(booking).filter(payment__payment_intent_id=intent).first()
    return share.payment if share else None


def locked_booking_for_payment(payment_intent_id: str | None, reference: str | None) -> Booking | None:
    """The booking a provider payment belongs to, row-locked: by the ledger's payment intent (of a return
    trip's payment, the ride the provider's metadata names, else its way out), else by the reference the
    provider carried in its metadata. Only the booking's row is locked: its money rows are locked after it,
    as everywhere."""
    named = reference if reference and selectors.storable(reference) else None
    booking_id = None
    if payment_intent_id and selectors.storable(payment_intent_id):
        carried = list(
            PaymentShare.objects.filter(payment__payment_intent_id=payment_intent_id)
            .order_by("booking_id")  # a return trip's way out (stored first) answers for its payment
            .values_list("booking_id", "booking__reference")
        )
        booking_id = next((pk for pk, ride in carried if ride == named), carried[0][0] if carried else None)
    if booking_id is None and named:
        booking_id = Booking.objects.filter(reference=named).values_list("pk", flat=True).first()
    return selectors.locked_booking(booking_id) if booking_id else None


def rides_paid_by(payment_intent_id: str) -> int:
    """How many bookings a provider payment pays (two for a return trip's)."""
    return PaymentShare.objects.filter(payment__payment_intent_id=payment_intent_id).count()
