"""The booking states of DECISIONS §9 and the only moves between them."""

from django.utils import timezone

from booking.models import Booking
from booking.models import BookingStatus as Status
from chauffeur.errors import DomainError

ALLOWED = {
    Status.PENDING_PAYMENT: {Status.PAID, Status.CANCELLED, Status.EXPIRED, Status.PAYMENT_FAILED},
    Status.PAID: {Status.CONFIRMED, Status.CANCELLED},
    Status.CONFIRMED: {Status.COMPLETED, Status.CANCELLED},
    # Money that arrives after all still makes the booking paid: nothing a customer paid for is lost.
    Status.EXPIRED: {Status.PAID, Status.CANCELLED},
    Status.PAYMENT_FAILED: {Status.PAID, Status.CANCELLED},
    Status.COMPLETED: set(),
    Status.CANCELLED: set(),
}
PAID_STATES = {Status.PAID, Status.CONFIRMED, Status.COMPLETED}


class InvalidTransition(DomainError):
    pass


def can_move(booking: Booking, target: str) -> bool:
    return target in ALLOWED[Status(booking.status)]


def move(booking: Booking, target: str) -> None:
    """Change the state in memory (the caller saves, inside its transaction)."""
    if not can_move(booking, target):
        raise InvalidTransition(
            f"A {booking.get_status_display()} booking cannot become {Status(target).label}."
        )
    booking.status = target
    if target == Status.PAID:
        booking.paid_at = timezone.now()
