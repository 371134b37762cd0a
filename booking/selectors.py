"""Booking look-ups, the locking ones included: every caller that changes a booking finds it here.

One lock order everywhere (docs/operations/payments.md): the booking row first, then its price differences
and refunds. A look-up that joins other tables locks the booking's row alone (`of=("self",)`), and a
price difference is locked only by a caller that already holds its booking."""

from django.db.models import Q, QuerySet, Sum

from booking.models import Booking, BookingStatus

# A ride is on (and its confirmation due) in these states.
PAID_STATES = (BookingStatus.PAID, BookingStatus.CONFIRMED, BookingStatus.COMPLETED)


def payable(booking: Booking) -> bool:
    """Whether a booking still takes a payment: awaiting it, and no money yet (its checkout is open)."""
    return booking.status == BookingStatus.PENDING_PAYMENT and not booking.money_received


def storable(text: str) -> bool:
    """Whether a text can be looked up at all: PostgreSQL refuses NUL characters in a query."""
    return "\x00" not in text


def booking_for_reference(reference: str) -> Booking | None:
    if not storable(reference):
        return None
    return Booking.objects.filter(reference=reference).first()


def locked_booking(pk: int) -> Booking:
    """The booking, row-locked until the caller's transaction ends (call inside transaction.atomic)."""
    found = next((booking for booking in locked_with_way_out(pk) if booking.pk == pk), None)
    if found is None:
        raise Booking.DoesNotExist(f"No booking {pk}.")
    return found


def locked_with_way_out(pk: int) -> list[Booking]:
    """The booking row-locked, after its way out when it is a return trip's way back (booking/trips.py), so
    a path that moves both rides never waits on one holding the other: the way out is stored first, so the
    order of their keys is the lock order. One statement; only the bookings' own rows are locked."""
    rides = Booking.objects.select_for_update(of=("self",)).filter(Q(pk=pk) | Q(way_back=pk))
    return list(rides.order_by("pk"))


def awaiting_confirmation() -> QuerySet[Booking]:
    return Booking.objects.filter(status__in=PAID_STATES, confirmation_sent_at__isnull=True)


def refunds_total(booking: Booking, statuses) -> int:
    """Cents of the booking's refunds in these states; from its prefetched refunds when a list of bookings
    came with them (booking/listing.py), so a list costs one query, not one per booking."""
    prefetched = getattr(booking, "_prefetched_objects_cache", {}).get("refunds")
    if prefetched is not None:
        return sum(refund.amount_cents for refund in prefetched if refund.status in statuses)
    return booking.refunds.filter(status__in=statuses).aggregate(total=Sum("amount_cents"))["total"] or 0
