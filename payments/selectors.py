"""Look-ups by a provider's payment session: the booking whose own payment page it is, and the price
difference (surcharge) it was opened for. Both go through the ledger's payment rows, which hold the provider
ids. The lock order is booking's (booking/selectors.py): its booking first, then the price difference."""

from datetime import datetime

from django.db.models import Exists, OuterRef, QuerySet

from booking.models import Booking, BookingStatus
from booking.selectors import storable
from payments.ledger import checkout_pages
from payments.models import Surcharge


def _booking_id_for_session(session_id: str, provider: str | None = None) -> int | None:
    if not storable(session_id):
        return None
    pages = checkout_pages(provider_session_id=session_id)
    if provider:
        pages = pages.filter(provider=provider)
    # a return trip's page carries both rides: its way out (stored first) answers for it
    return pages.order_by("shares__booking_id").values_list("shares__booking_id", flat=True).first()


def booking_for_session(session_id: str, *, provider: str | None = None) -> Booking | None:
    """The booking whose own payment page this session is (of this provider, when named)."""
    booking_id = _booking_id_for_session(session_id, provider)
    return Booking.objects.filter(pk=booking_id).first() if booking_id else None


def locked_booking_for_session(session_id: str, reference: str | None) -> Booking | None:
    """The booking a payment session belongs to, row-locked: by its payment page, else by the reference the
    provider carried in its metadata. Only the booking's row is locked: its money rows after it."""
    query = Booking.objects.select_for_update()
    booking_id = _booking_id_for_session(session_id)
    found = query.filter(pk=booking_id).first() if booking_id else None
    if found is None and reference and storable(reference):
        found = query.filter(reference=reference).first()
    return found


def pending_payment_since(cutoff: datetime) -> QuerySet[Booking]:
    """Bookings created before `cutoff`, still awaiting the money of the payment page they were given."""
    return Booking.objects.filter(
        Exists(checkout_pages(shares__booking=OuterRef("pk"))),
        status=BookingStatus.PENDING_PAYMENT,
        created_at__lt=cutoff,
    )


def never_given_a_payment_page(cutoff: datetime) -> QuerySet[Booking]:
    """Pending bookings whose payment page the provider never opened (it failed at checkout)."""
    return Booking.objects.filter(
        ~Exists(checkout_pages(shares__booking=OuterRef("pk"))),
        status=BookingStatus.PENDING_PAYMENT,
        created_at__lt=cutoff,
    )


def locked_surcharge_for_session(session_id: str) -> Surcharge | None:
    """The price difference a payment session was opened for, row-locked; None for a booking's own. Call
    holding its booking's lock (the booking first): find the booking by `surcharge_for_session`."""
    if not storable(session_id):
        return None
    return (
        Surcharge.objects.select_for_update(of=("self",))
        .filter(payment__provider_session_id=session_id)
        .first()
    )


def surcharge_for_session(session_id: str) -> Surcharge | None:
    if not storable(session_id):
        return None
    return Surcharge.objects.select_related("booking").filter(payment__provider_session_id=session_id).first()


def unpaid_surcharges_since(cutoff: datetime) -> QuerySet[Surcharge]:
    """Payment pages of price differences opened before `cutoff` and not paid yet."""
    return Surcharge.objects.filter(
        status=Surcharge.Status.PENDING, payment__provider_session_id__isnull=False, created_at__lt=cutoff
    ).select_related("booking")
