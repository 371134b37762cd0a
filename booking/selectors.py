"""Booking look-ups, the locking ones included: every caller that changes a booking finds it here.

One lock order everywhere (docs/operations/payments.md): the booking row first, then its price differences
and refunds. A look-up that joins other tables locks the booking's row alone (`of=("self",)`), and a
price difference is locked only by a caller that already holds its booking."""

from datetime import datetime

from django.db.models import QuerySet, Sum

from booking.models import Booking, BookingStatus

# A ride is on (and its confirmation due) in these states.
PAID_STATES = (BookingStatus.PAID, BookingStatus.CONFIRMED, BookingStatus.COMPLETED)


def payable(booking: Booking) -> bool:
    """Whether a booking still takes a payment: awaiting it, and no money yet (its checkout is open)."""
    return booking.status == BookingStatus.PENDING_PAYMENT and not booking.money_received


def storable(text: str) -> bool:
    """Whether a text can be looked up at all: PostgreSQL refuses NUL characters in a query."""
    return "\x00" not in text


def booking_for_session(session_id: str, *, provider: str | None = None) -> Booking | None:
    if not storable(session_id):
        return None
    query = Booking.objects.filter(provider_session_id=session_id)
    return (query.filter(payment_provider=provider) if provider else query).first()


def booking_for_reference(reference: str) -> Booking | None:
    if not storable(reference):
        return None
    return Booking.objects.filter(reference=reference).first()


def locked_booking(pk: int) -> Booking:
    """The booking, row-locked until the caller's transaction ends (call inside transaction.atomic)."""
    return Booking.objects.select_for_update().get(pk=pk)


def locked_booking_for_session(session_id: str, reference: str | None) -> Booking | None:
    """The booking a payment session belongs to, row-locked: by session id, else by the reference the
    provider carried in its metadata."""
    query = Booking.objects.select_for_update()
    found = query.filter(provider_session_id=session_id).first() if storable(session_id) else None
    if found is None and reference and storable(reference):
        found = query.filter(reference=reference).first()
    return found


def awaiting_confirmation() -> QuerySet[Booking]:
    return Booking.objects.filter(status__in=PAID_STATES, confirmation_sent_at__isnull=True)


def pending_payment_since(cutoff: datetime) -> QuerySet[Booking]:
    return Booking.objects.filter(
        status=BookingStatus.PENDING_PAYMENT, provider_session_id__isnull=False, created_at__lt=cutoff
    )


def never_given_a_payment_page(cutoff: datetime) -> QuerySet[Booking]:
    """Pending bookings whose payment page the provider never opened (it failed at checkout)."""
    return Booking.objects.filter(
        status=BookingStatus.PENDING_PAYMENT, provider_session_id__isnull=True, created_at__lt=cutoff
    )


def refunds_total(booking: Booking, statuses) -> int:
    """Cents of the booking's refunds in these states; from its prefetched refunds when a list of bookings
    came with them (booking/listing.py), so a list costs one query, not one per booking."""
    prefetched = getattr(booking, "_prefetched_objects_cache", {}).get("refunds")
    if prefetched is not None:
        return sum(refund.amount_cents for refund in prefetched if refund.status in statuses)
    return booking.refunds.filter(status__in=statuses).aggregate(total=Sum("amount_cents"))["total"] or 0
