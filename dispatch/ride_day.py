"""The ride's day: the chauffeur moves an assigned ride on, one state at a time (booking/ride.py has the
order), from the job page; staff undo a wrong or late tap. Completing (or a no-show) completes the booking.

The moves keep to the clock of the ride (`opens_at`), whoever makes them; a move refused changes nothing
and tells the traveller nothing:
- "on the way" and "arrived" from the policy's start window before the pickup (90 minutes by default);
  "on the way" earlier only when the chauffeur confirmed the ride's day and time (`confirmed_pickup`):
  a pickup far away may need an early start, a ride days ahead never an "arrived";
- "passenger on board" once arrived (a traveller may come down early);
- "completed" not before the pickup time (as staff's "Mark as completed");
- a no-show once the chauffeur has waited what the policy includes (dispatch/waiting.py)."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.text import capfirst, format_lazy
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import announcements, history, ride, selectors, transitions
from booking import tasks as booking_tasks
from booking.models import Booking, BookingStatus, RideState, RideStep
from booking.ride_position import SHARED_STATES
from dispatch import positions, ride_billing
from dispatch.models import RideDayPolicy, ride_day_policy
from dispatch.waiting import no_show_from
from fleet.models import Driver
from sitekit import l10n

# The one move that may be made before its time, once the chauffeur confirmed it.
EARLY_ALLOWED = RideState.ON_THE_WAY
# Refusal codes the job page answers on its own: the question before an early start.
CONFIRM_EARLY_START = "confirm_early_start"


class RideMoveRefused(DomainError):
    pass


@dataclass(frozen=True)
class NextMove:
    """A move the ride may make next, and from when by the clock (None: now already)."""

    state: RideState
    opens_at: datetime | None

    def open(self, now: datetime) -> bool:
        return self.opens_at is None or now >= self.opens_at

    def early_start(self, now: datetime) -> bool:
        """Offered before its time, after a question: "on the way" before the start window."""
        return self.state == EARLY_ALLOWED and not self.open(now)


def next_moves(
    booking: Booking, progress: ride.RideProgress, policy: RideDayPolicy | None = None
) -> list[NextMove]:
    """The moves that follow the ride's state, each with the time it opens; none for a ride not going
    ahead (or done)."""
    if booking.status != BookingStatus.CONFIRMED:
        return []
    policy = policy or ride_day_policy()
    return [
        NextMove(state, opens_at(booking, progress, state, policy))
        for state in ride.next_states(progress.state)
    ]


def opens_at(
    booking: Booking, progress: ride.RideProgress, state: RideState, policy: RideDayPolicy
) -> datetime | None:
    if state == RideState.NO_SHOW:
        return no_show_from(booking, progress)
    if booking.pickup_at is None:  # an hourly hire "as agreed": no clock to keep
        return None
    if state in (RideState.ON_THE_WAY, RideState.ARRIVED):
        return booking.pickup_at - timedelta(minutes=policy.start_window_minutes)
    if state == RideState.COMPLETED:
        return booking.pickup_at
    return None


def advance(
    pk: int, target: str, *, driver: Driver | None, actor: str, confirmed_pickup: datetime | None = None
) -> Booking:
    """Move the ride to `target` (a RideState) for `driver` (None: staff). Refused, changing nothing and
    sending nothing, when the ride is not this chauffeur's confirmed ride, `target` is not the next state,
    or its time has not come. "On the way" before its time needs `confirmed_pickup`, the pickup time the
    chauffeur was asked about: a ride moved since is asked about again (code CONFIRM_EARLY_START)."""
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
        move = next((move for move in next_moves(booking, progress) if move.state == target), None)
        if move is None:
            raise RideMoveRefused(_refusal(progress, target), code="ride_state_conflict")
        early = not move.open(now)
        if early and not (move.early_start(now) and confirmed_pickup == booking.pickup_at):
            raise _too_early(booking, progress, move, now)
        RideStep.objects.create(booking=booking, state=target, at=now, actor=actor[:150])
        states = {
            "before": history.ride_state(progress.state) if progress.state else "—",
            "after": history.ride_state(target),
        }
        said = (
            history.said("Ride: {before} → {after}, before its time, as the chauffeur confirmed", **states)
            if early
            else history.said("Ride: {before} → {after}", **states)
        )
        history.record(booking, history.Kind.RIDE, said, actor=actor)
        if target in (RideState.ON_THE_WAY, RideState.ARRIVED):  # the traveller's news, with the move
            booking_tasks.send_ride_news.enqueue(booking.pk, target)
        if target == RideState.ON_BOARD or target in ride.FINAL:  # the traveller saw the chauffeur coming
            positions.forget(booking)
        if target in ride.FINAL:
            transitions.apply(booking, BookingStatus.COMPLETED, actor=actor)
        ride_billing.settle(booking, actor=actor)  # waiting time or the no-show fee, once the ride ended
        if target != RideState.ACCEPTED:  # the chauffeur's own acknowledgement is nobody else's news
            announcements.announce(booking, f"ride.{target}", rideState=target)
    return booking


def undo_last(pk: int, *, actor: str) -> Booking:
    """Staff take back the ride's last move (kept in the record as undone); a completed ride is confirmed
    again. A ride back before "on the way" loses the chauffeur's shared position and consent: the next
    "on the way" asks again."""
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
        if ride.progress(booking).state not in SHARED_STATES:
            positions.forget(booking)
        if last.state != RideState.ACCEPTED:
            announcements.announce(booking, "ride.step_undone", undoneRideState=last.state)
    return booking


def possible_from(state: RideState, moment: datetime, now: datetime):
    """“Arrived” possible from 08:30 (a time of another day with its date), in the active language."""
    return format_lazy(
        _("“{state}” possible from {when}."),
        state=capfirst(RideState(state).label),
        when=at_time(moment, now),
    )


def at_time(moment: datetime, now: datetime) -> str:
    """The time alone on the day of `now` (Vienna), else with its weekday and date."""
    local = timezone.localtime(moment)
    if local.date() == timezone.localtime(now).date():
        return local.strftime("%H:%M")
    return l10n.day_time(local)


def _too_early(
    booking: Booking, progress: ride.RideProgress, move: NextMove, now: datetime
) -> RideMoveRefused:
    pickup, opens = booking.pickup_at, move.opens_at
    if move.early_start(now) and pickup is not None:  # an early start opens before a pickup time
        return RideMoveRefused(
            format_lazy(
                _("This ride is on {day} at {time}. Confirm to start now."),
                day=l10n.day(pickup),
                time=timezone.localtime(pickup).strftime("%H:%M"),
            ),
            code=CONFIRM_EARLY_START,
        )
    assert opens is not None  # noqa: S101  (a move without a time is open, never early)
    if move.state == RideState.NO_SHOW:
        return RideMoveRefused(
            format_lazy(
                _("A no-show can be recorded from {time}, after the included waiting time."),
                time=at_time(opens, now),
            ),
            code="ride_too_early",
        )
    return RideMoveRefused(possible_from(move.state, opens, now), code="ride_too_early")


def _refusal(progress: ride.RideProgress, target: str):
    return format_lazy(
        _("The ride is {state}; it cannot become {target} now."),
        state=RideState(progress.state).label if progress.state else _("not accepted yet"),
        target=RideState(target).label if target in RideState.values else target,
    )
