"""The ride's day: the chauffeur moves an assigned ride on, one state at a time (booking/ride.py has the
order), from the job page; staff undo a wrong or late tap. A no-show needs the chauffeur to have waited
what the policy requires; completing (or a no-show) completes the booking."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from booking import history, ride, selectors, transitions
from booking import tasks as booking_tasks
from booking.models import Booking, BookingStatus, RideState, RideStep
from chauffeur.errors import DomainError
from dispatch import ride_billing
from dispatch.waiting import no_show_from
from fleet.models import Driver


class RideMoveRefused(DomainError):
    pass


def moves_now(booking: Booking, progress: ride.RideProgress, now: datetime | None = None) -> list[RideState]:
    """The buttons the job page offers now: the next state only, and no-show once its wait is over."""
    now = now or timezone.now()
    if booking.status != BookingStatus.CONFIRMED:
        return []
    allowed = ride.next_states(progress.state)
    if RideState.NO_SHOW in allowed and now < no_show_from(booking, progress):
        allowed.remove(RideState.NO_SHOW)
    return allowed


def advance(pk: int, target: str, *, driver: Driver | None, actor: str) -> Booking:
    """Move the ride to `target` (a RideState) for `driver` (None: staff). Refused, changing nothing, when
    the ride is not this chauffeur's confirmed ride or `target` is not the next state now."""
    with transaction.atomic():
        booking = selectors.locked_booking(pk)
        if booking.status != BookingStatus.CONFIRMED or (
            driver is not None and booking.driver_id != driver.pk
        ):
            raise RideMoveRefused(
                format_lazy(
                    _("{reference} is not a confirmed ride of this chauffeur."), reference=booking.reference
                ),
                code="not_your_ride",
            )
        progress = ride.progress(booking)
        now = timezone.now()
        if target not in moves_now(booking, progress, now):
            raise RideMoveRefused(_refusal(booking, progress, target), code="ride_state_conflict")
        RideStep.objects.create(booking=booking, state=target, at=now, actor=actor[:150])
        said = history.said(
            "Ride: {before} → {after}",
            before=history.ride_state(progress.state) if progress.state else "—",
            after=history.ride_state(target),
        )
        history.record(booking, history.Kind.RIDE, said, actor=actor)
        if target in (RideState.ON_THE_WAY, RideState.ARRIVED):  # the traveller's news, with the move
            booking_tasks.send_ride_news.enqueue(booking.pk, target)
        if target in ride.FINAL:
            transitions.apply(booking, BookingStatus.COMPLETED, actor=actor)
        ride_billing.settle(booking, actor=actor)  # waiting time or the no-show fee, once the ride ended
    return booking


def undo_last(pk: int, *, actor: str) -> Booking:
    """Staff take back the ride's last move (kept in the record as undone); a completed ride is confirmed
    again."""
    with transaction.atomic():
        booking = selectors.locked_booking(pk)
        last = booking.ride_steps.filter(undone_at__isnull=True).order_by("at", "pk").last()
        if last is None:
            raise RideMoveRefused(
                format_lazy(_("{reference} has no ride step to undo."), reference=booking.reference),
                code="ride_state_conflict",
            )
        last.undone_at, last.undone_by = timezone.now(), actor[:150]
        last.save(update_fields=["undone_at", "undone_by"])
        undone = history.said("Ride: {state} undone", state=history.ride_state(last.state))
        history.record(booking, history.Kind.RIDE, undone, actor=actor)
        if last.state in ride.FINAL and booking.status == BookingStatus.COMPLETED:
            booking.status = BookingStatus.CONFIRMED  # the ride goes on: not a move a customer can make
            booking.save(update_fields=["status", "updated_at"])
        ride_billing.void(booking, last, actor=actor)  # what the undone end of the ride charged
    return booking


def _refusal(booking: Booking, progress: ride.RideProgress, target: str):
    if target == RideState.NO_SHOW and progress.state == RideState.ARRIVED:
        return format_lazy(
            _("A no-show can be recorded from {time}, after the included waiting time."),
            time=timezone.localtime(no_show_from(booking, progress)).strftime("%H:%M"),
        )
    return format_lazy(
        _("The ride is {state}; it cannot become {target} now."),
        state=RideState(progress.state).label if progress.state else _("not accepted yet"),
        target=RideState(target).label if target in RideState.values else target,
    )
