"""Look-ups of price differences (surcharges) by their payment session. The lock order is booking's
(booking/selectors.py): its booking first, then the price difference."""

from datetime import datetime

from django.db.models import QuerySet

from booking.selectors import storable
from payments.models import Surcharge


def locked_surcharge_for_session(session_id: str) -> Surcharge | None:
    """The price difference a payment session was opened for, row-locked; None for a booking's own. Call
    holding its booking's lock (the booking first): find the booking by `surcharge_for_session`."""
    if not storable(session_id):
        return None
    return Surcharge.objects.select_for_update().filter(provider_session_id=session_id).first()


def surcharge_for_session(session_id: str) -> Surcharge | None:
    if not storable(session_id):
        return None
    return Surcharge.objects.select_related("booking").filter(provider_session_id=session_id).first()


def unpaid_surcharges_since(cutoff: datetime) -> QuerySet[Surcharge]:
    """Payment pages of price differences opened before `cutoff` and not paid yet."""
    return Surcharge.objects.filter(
        status=Surcharge.Status.PENDING, provider_session_id__isnull=False, created_at__lt=cutoff
    ).select_related("booking")
