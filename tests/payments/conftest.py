"""The booking fixture of tests/booking/conftest.py, for the tests of this app too, and a refund made the way
staff's refund page makes one, without its one-time key."""

from django.db import transaction

from booking import selectors
from payments import refunds
from payments.models import Refund
from tests.booking.conftest import make_booking  # noqa: F401


def refund_booking(pk: int, amount_cents: int, **details) -> list[Refund]:
    """`refunds.refund` of booking `pk`, locked in a transaction of its own: all of it, or nothing."""
    with transaction.atomic():
        return refunds.refund(selectors.locked_booking(pk), amount_cents, **details)
