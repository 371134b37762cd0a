"""The ride's panel of the manage page, in the traveller's words: where the chauffeur is on the ride's day
(booking/ride.py), a short timeline of the moves with their times, the chauffeur and the car. The page
shows it, and serves it alone for the page's script to refresh it (web/static/booking/ride.js)."""

from dataclasses import dataclass
from datetime import datetime

from django.utils import formats, timezone
from django.utils.translation import gettext_lazy as _

from booking.lifecycle import BookingState
from booking.models import BookingStatus, RideState
from booking.ride import FINAL, SEQUENCE
from sitekit import l10n

# How often the page asks again while the ride can still move (seconds): the chauffeur's moves are minutes
# apart, and each ask is one small page.
REFRESH_SECONDS = 30

# The rides the panel is for: paid ones wait for their chauffeur, confirmed ones follow the ride's day.
SHOWN = (BookingStatus.PAID, BookingStatus.CONFIRMED, BookingStatus.COMPLETED)

STEP_WORDS = {
    RideState.ACCEPTED: _("Ride accepted"),
    RideState.ON_THE_WAY: _("Chauffeur on the way"),
    RideState.ARRIVED: _("Chauffeur at the pickup"),
    RideState.ON_BOARD: _("Picked up"),
    RideState.COMPLETED: _("Ride completed"),
    RideState.NO_SHOW: _("Not met at the pickup"),
}
NOW_WORDS = {
    None: _("Your chauffeur has not accepted the ride yet; you will see here when they set off."),
    RideState.ACCEPTED: _("Your chauffeur has accepted the ride."),
    RideState.ON_THE_WAY: _("Your chauffeur is on the way to the pickup."),
    RideState.ARRIVED: _("Your chauffeur has arrived at the pickup."),
    RideState.ON_BOARD: _("You are on board. Have a good ride!"),
    RideState.COMPLETED: _("The ride is completed. Thank you for travelling with us."),
    RideState.NO_SHOW: _(
        "Your chauffeur waited at the pickup and could not find you; the ride is closed. Please contact us."
    ),
}
WAITING_FOR_CHAUFFEUR = _(
    "A chauffeur will be assigned before the ride; their name, phone and car will show here."
)


@dataclass(frozen=True)
class Step:
    state: RideState
    words: str
    at: str  # when it was reached, as the traveller reads it; "" while to come
    current: bool


@dataclass(frozen=True)
class Panel:
    now: str
    steps: list[Step]
    final: bool  # nothing more can change: the page stops asking
    driver: object = None  # the chauffeur (name, phone) and the car (model, plate) once confirmed
    vehicle: object = None


def panel(state: BookingState) -> Panel | None:
    """The panel for the page's language (activate it first); None for a booking it is not for."""
    booking = state.booking
    if booking.status not in SHOWN:
        return None
    if state.driver is None:
        return Panel(str(WAITING_FOR_CHAUFFEUR), [], final=False)
    progress = state.ride
    order = [*SEQUENCE[:3], RideState.NO_SHOW] if progress.state == RideState.NO_SHOW else list(SEQUENCE)
    steps = [
        Step(
            step,
            str(STEP_WORDS[step]),
            _time(progress.at(step), booking.pickup_at),
            current=step == progress.state,
        )
        for step in order
    ]
    said = progress.state
    if booking.status == BookingStatus.COMPLETED and said not in FINAL:
        said = RideState.COMPLETED  # staff completed it without the chauffeur's moves
    final = said in FINAL
    return Panel(str(NOW_WORDS[said]), steps, final=final, driver=state.driver, vehicle=state.vehicle)


def _time(moment: datetime | None, pickup: datetime | None) -> str:
    """On the pickup's day the time alone (18:42); another day (accepted the day before) with its date."""
    if moment is None:
        return ""
    local = timezone.localtime(moment)
    if pickup is not None and local.date() == timezone.localtime(pickup).date():
        return formats.date_format(local, l10n.TIME_FORMAT)
    return l10n.short(local)
