"""The ride's panel of the manage page, in the traveller's words: where the chauffeur is on the ride's day
(booking/ride.py), a short timeline of the moves with their times, the chauffeur and the car, and, from "on
the way" until "on board", the chauffeur's position and arrival time when they share it
(booking/ride_position.py). The page shows it, and serves it alone for the page's script to refresh it
(web/static/booking/ride.js; web/static/booking/ride_map.js draws the map)."""

from dataclasses import dataclass
from datetime import datetime

from django.utils import formats, timezone
from django.utils.translation import gettext_lazy as _

from booking.lifecycle import BookingState
from booking.models import BookingStatus, FlightStatus, RideState
from booking.ride import FINAL, SEQUENCE
from booking.ride_position import SharedPosition, shared_position
from sitekit import l10n

# How often the page asks again while the ride can still move (seconds): the chauffeur's moves are minutes
# apart, and each ask is one small page.
REFRESH_SECONDS = 30
# Sooner while the chauffeur is on the way: their position moves (the job page sends it every 10 s).
ON_THE_WAY_REFRESH_SECONDS = 10

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
class Position:
    """The chauffeur's shared position as the panel prints it, and as the map's script reads it."""

    latitude: str  # "48.20849": the script's numbers, in no language's format
    longitude: str
    pickup_latitude: str  # "" when the pickup could not be placed: no marker for it
    pickup_longitude: str
    at: str  # when the phone measured it, as the traveller reads times
    accuracy_m: int | None
    eta: str  # at the pickup, "" when not known (or arrived)


@dataclass(frozen=True)
class Panel:
    now: str
    steps: list[Step]
    final: bool  # nothing more can change: the page stops asking
    driver: object = None  # the chauffeur (name, phone) and the car (model, plate) once confirmed
    vehicle: object = None
    position: Position | None = None
    refresh_seconds: int = REFRESH_SECONDS
    flight: str = ""  # the flight the pickup meets, as last heard, and the pickup it sets


def flight_words(state: BookingState) -> str:
    """What the traveller reads of their flight; "" for a ride that meets none, or a flight not found."""
    flight, pickup = state.flight, state.booking.pickup_at
    if flight is None or pickup is None or flight.status == FlightStatus.UNKNOWN:
        return ""
    values = {"flight": flight.number, "pickup": l10n.time_of_day(pickup)}
    if flight.status == FlightStatus.NOT_TRACKED:  # no flight data, or a private aircraft's registration
        return str(
            _("Your chauffeur meets you at %(pickup)s as booked: tell us if your flight is late.") % values
        )
    if flight.status == FlightStatus.CANCELLED:
        return str(_("Your flight %(flight)s is cancelled: we will contact you about the pickup.") % values)
    if flight.status == FlightStatus.DIVERTED:
        return str(_("Your flight %(flight)s is diverted: we will contact you about the pickup.") % values)
    moved = flight.pickup_as_booked is not None and flight.pickup_as_booked != pickup
    if moved:
        assert flight.pickup_as_booked is not None  # noqa: S101  (tested above; for the type checker)
        values["booked"] = l10n.time_of_day(flight.pickup_as_booked)
    if flight.actual_landing is not None:
        values["landing"] = l10n.time_of_day(flight.actual_landing)
        said = _("Your flight %(flight)s landed at %(landing)s; your chauffeur meets you at %(pickup)s.")
    elif flight.estimated_landing is not None:
        values["landing"] = l10n.time_of_day(flight.estimated_landing)
        said = _("Your flight %(flight)s is expected at %(landing)s; your chauffeur meets you at %(pickup)s.")
    else:
        said = _("We follow your flight %(flight)s; if it is late or early, your pickup moves with it.")
    text = str(said) % values
    if moved:
        text += " " + str(_("(Booked for %(booked)s: moved with your flight.)") % values)
    return text


def panel(state: BookingState) -> Panel | None:
    """The panel for the page's language (activate it first); None for a booking it is not for."""
    booking = state.booking
    if booking.status not in SHOWN:
        return None
    if state.driver is None:
        return Panel(str(WAITING_FOR_CHAUFFEUR), [], final=False, flight=flight_words(state))
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
    shared = shared_position(booking)
    return Panel(
        str(NOW_WORDS[said]),
        steps,
        final=final,
        driver=state.driver,
        vehicle=state.vehicle,
        position=_position(shared, booking.pickup_at) if shared else None,
        refresh_seconds=ON_THE_WAY_REFRESH_SECONDS
        if shared or said == RideState.ON_THE_WAY
        else REFRESH_SECONDS,
        flight="" if final or said == RideState.ON_BOARD else flight_words(state),
    )


def _position(shared: SharedPosition, pickup_at: datetime | None) -> Position:
    pickup = shared.pickup
    return Position(
        latitude=f"{shared.latitude:.5f}",
        longitude=f"{shared.longitude:.5f}",
        pickup_latitude=f"{pickup.lat:.5f}" if pickup else "",
        pickup_longitude=f"{pickup.lng:.5f}" if pickup else "",
        at=_time(shared.measured_at, pickup_at),
        accuracy_m=shared.accuracy_m,
        eta=_time(shared.eta, pickup_at),
    )


def _time(moment: datetime | None, pickup: datetime | None) -> str:
    """On the pickup's day the time alone (18:42); another day (accepted the day before) with its date."""
    if moment is None:
        return ""
    local = timezone.localtime(moment)
    if pickup is not None and local.date() == timezone.localtime(pickup).date():
        return formats.date_format(local, l10n.TIME_FORMAT)
    return l10n.short(local)
