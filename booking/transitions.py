"""The booking states of docs/decisions.md §9, the only moves between them, and the one place a move
happens: lock, check, move, save, and queue what follows once the transaction commits. Webhooks, the
sandbox, reconciliation and the admin all move bookings through `move`/`apply`."""

from django.db import transaction
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import announcements, history, selectors, tasks
from booking.models import Booking, ChauffeurPosition
from booking.models import BookingStatus as Status

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

# The moves agents and partners hear of; a completed ride is the ride's day's news (dispatch/ride_day.py).
ANNOUNCED: dict[str, str] = {
    Status.PAID: "booking.paid",
    Status.CONFIRMED: "booking.confirmed",
    Status.CANCELLED: "booking.cancelled",
}


class InvalidTransition(DomainError):
    pass


def can_move(booking: Booking, target: str) -> bool:
    return target in ALLOWED[Status(booking.status)]


def next_states(booking: Booking) -> list[Status]:
    """The states this booking may move to now, in the order of the states' list."""
    return [status for status in Status if can_move(booking, status)]


def apply(booking: Booking, target: str, *, actor: str) -> None:
    """Move a booking the caller holds row-locked, save it, record the move in its history, and queue the
    confirmation of a payment for after the commit. Raises InvalidTransition for a move the states do not
    allow. `actor` says who moved it (a staff user, the customer, a token, the payment provider). A booking
    that becomes paid gets its invoice here, in the caller's transaction."""
    if not can_move(booking, target):
        raise InvalidTransition(
            format_lazy(
                _("A {state} booking cannot become {target}."),
                state=Status(booking.status).label,
                target=Status(target).label,
            )
        )
    before = booking.status
    booking.status = target
    if target == Status.PAID:
        booking.paid_at = timezone.now()  # what was received is payments' ledger's
    if target == Status.CANCELLED:
        booking.cancelled_at = timezone.now()
    booking.save(update_fields=["status", "paid_at", "cancelled_at", "updated_at"])
    change = history.said(
        "{before} → {after}", before=history.state(before), after=history.state(booking.status)
    )
    history.record(booking, history.Kind.STATUS, change, actor=actor)
    if booking.status != Status.CONFIRMED:  # no chauffeur on the way any more: nothing to share
        ChauffeurPosition.objects.filter(booking=booking).delete()
    if target == Status.PAID:
        tasks.send_confirmation.enqueue(booking.pk)
    if target in ANNOUNCED:
        announcements.announce(booking, ANNOUNCED[target])


def move(pk: int, target: str, *, actor: str) -> Booking:
    """Lock a booking and move it (for callers that hold no lock yet)."""
    with transaction.atomic():
        booking = selectors.locked_booking(pk)
        apply(booking, target, actor=actor)
    return booking


class RideAhead(DomainError):
    code = "ride_ahead"


def completable(booking: Booking, now=None) -> bool:
    """Whether staff may mark the ride completed by hand: confirmed, and its pickup time has come (a ride
    three days ahead cannot have been driven)."""
    now = now or timezone.now()
    return can_move(booking, Status.COMPLETED) and booking.pickup_at is not None and booking.pickup_at <= now


def complete_by_staff(pk: int, *, actor: str) -> Booking:
    """Staff mark a ride completed ("Mark as completed"); refused, changing nothing, for a booking whose
    state does not allow it or whose pickup time has not come."""
    with transaction.atomic():
        booking = selectors.locked_booking(pk)
        if can_move(booking, Status.COMPLETED) and not completable(booking):
            raise RideAhead(
                format_lazy(
                    _("{reference} cannot be completed before its pickup time ({pickup})."),
                    reference=booking.reference,
                    pickup=timezone.localtime(booking.pickup_at).strftime("%d.%m.%Y %H:%M")
                    if booking.pickup_at
                    else _("not set"),
                )
            )
        apply(booking, Status.COMPLETED, actor=actor)
        announcements.announce(booking, "ride.completed")
    return booking
