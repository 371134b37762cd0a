"""A booking changed by its traveller or agent through the API or MCP, quote first: the new price and what
happens to the difference, with nothing changed, under an id valid for a few minutes; then the change made
under that id, once, while the booking is still as it was quoted. Staff's rules apply (dispatch/changes.py),
with the lead time always kept; once the chauffeur has set off, nothing changes here."""

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from apikit.problems import PROBLEM_KINDS
from booking import ride, selectors
from booking.checkout import ensure_bookable
from booking.models import Booking, RideState
from booking.ride_stops import Stop
from dispatch import changes, rerouting
from dispatch.models import ChangeQuote
from payments.models import Surcharge
from pricing.money import to_cents
from pricing.quote import ExtraChoice, Quote

VALID_FOR = timedelta(minutes=10)
UNDER_WAY = (
    RideState.ON_THE_WAY,
    RideState.ARRIVED,
    RideState.ON_BOARD,
    RideState.COMPLETED,
    RideState.NO_SHOW,
)


@dataclass(frozen=True)
class Quoted:
    """A change priced: `settlement` says what happens to the difference ("none", "refund" to the payment it
    came from, "pay" through a link, "invoiced" on the company's collective invoice) and `settled_cents` how
    much."""

    id: str
    expires_at: datetime
    booking: Booking
    pickup: datetime
    vehicle_class: str
    ride: rerouting.Ride
    quote: Quote
    previous_cents: int
    difference_cents: int
    settlement: str
    settled_cents: int


@dataclass(frozen=True)
class Made:
    booking: Booking
    difference_cents: int
    settlement: str
    settled_cents: int
    payment_url: str | None  # the link that takes a difference to pay


def quote_change(
    booking: Booking,
    *,
    pickup: datetime | None,
    vehicle_class: str | None,
    origin: str | None = None,
    destination: str | None = None,
    passengers: int | None = None,
    luggage: int | None = None,
    stops: tuple[Stop, ...] | None = None,
    extras: tuple[ExtraChoice, ...] | None = None,
) -> Quoted:
    """The change priced and kept for VALID_FOR; nothing of the booking changes. New addresses or stops are
    routed now, and the change is made on that route."""
    with transaction.atomic():
        locked = selectors.locked_booking(booking.pk)
        new_pickup, vehicle_class = pickup or locked.pickup_at, vehicle_class or locked.vehicle_class
        if new_pickup is None or locked.pickup_at is None:
            raise DomainError(_("This booking has no pickup time to change."), code="not_changeable")
        _ensure_open(locked)
        new_ride = rerouting.wanted(
            locked,
            new_pickup,
            origin=origin,
            destination=destination,
            passengers=passengers,
            luggage=luggage,
            stops=stops,
            extras=extras,
        )
        if (new_pickup, vehicle_class, new_ride) == (
            locked.pickup_at,
            locked.vehicle_class,
            rerouting.as_booked(locked),
        ):
            raise DomainError(
                _("Name what changes: the booking already has this pickup, class, route, party and extras."),
                code="invalid_request",
            )
        quote = _allowed(locked, new_pickup, vehicle_class, new_ride)
        difference = to_cents(quote.price) - locked.amount_cents
        settlement, settled = changes.settlement_of(locked, difference)
        row = ChangeQuote.objects.create(
            public_id="cq_" + secrets.token_urlsafe(16),
            booking=locked,
            pickup_at=new_pickup,
            vehicle_class=vehicle_class,
            ride=new_ride.as_record(),
            price_cents=to_cents(quote.price),
            booking_version=changes.version(locked),
            expires_at=timezone.now() + VALID_FOR,
        )
    return Quoted(
        id=row.public_id,
        expires_at=row.expires_at,
        booking=locked,
        pickup=new_pickup,
        vehicle_class=vehicle_class,
        ride=new_ride,
        quote=quote,
        previous_cents=locked.amount_cents,
        difference_cents=difference,
        settlement=settlement,
        settled_cents=settled,
    )


def make_change(booking: Booking, quote_id: str, *, actor: str) -> Made:
    """The quoted change made: refused (409 `stale_change_quote`) when the id is unknown for this booking,
    used, expired, or the booking or its price changed since; all of it or nothing."""
    with transaction.atomic():
        locked = changes.locked_for_change(booking.pk)  # as change_ride locks it below: the driver first
        quoted = (
            ChangeQuote.objects.select_for_update().filter(public_id=quote_id.strip(), booking=locked).first()
        )
        if quoted is None or quoted.applied_at is not None or quoted.expires_at <= timezone.now():
            raise _stale(_("This change quote is unknown, used or expired: ask for a new one."))
        if quoted.booking_version != changes.version(locked):
            raise _stale(_("The booking changed since this quote: ask for a new one."))
        # a quote's ride names what it changes; what it does not name stays as booked
        new_ride = rerouting.Ride.from_record({**rerouting.as_booked(locked).as_record(), **quoted.ride})
        _ensure_open(locked)
        quote = _allowed(locked, quoted.pickup_at, quoted.vehicle_class, new_ride)
        if to_cents(quote.price) != quoted.price_cents:
            raise _stale(_("The price changed since this quote: ask for a new one."))
        settlement, settled = changes.settlement_of(locked, quoted.price_cents - locked.amount_cents)
        quoted.applied_at = timezone.now()
        quoted.save(update_fields=["applied_at"])
        with _as_api_refusal():
            made = changes.change_ride(
                locked.pk,
                pickup=quoted.pickup_at,
                vehicle_class=quoted.vehicle_class,
                through_provider=True,
                actor=actor,
                ride=new_ride,
            )
        link = (
            made.booking.surcharges.filter(status=Surcharge.Status.PENDING).order_by("-pk").first()
            if settlement == "pay"
            else None
        )
    return Made(
        booking=made.booking,
        difference_cents=made.difference_cents,
        settlement=settlement,
        settled_cents=settled,
        payment_url=link.payment_url if link else None,
    )


def _ensure_open(booking: Booking) -> None:
    """The booking may change here at all: its state, the chauffeur not yet set off, the ride itself still
    outside the lead time (asked first: before a new address costs a call to the routes' provider)."""
    with _as_api_refusal():
        changes.ensure_state(booking)
    if ride.progress(booking).state in UNDER_WAY:
        raise DomainError(
            _("The chauffeur has set off for this ride: call the operator to change it."),
            code="not_changeable",
        )
    assert booking.pickup_at is not None  # noqa: S101  (quote_change refused a booking without one)
    try:  # the ride itself still outside the lead time: a ride about to start, or driven, stays as it is
        ensure_bookable(booking.pickup_at)
    except DomainError as too_close:
        raise DomainError(
            _("The ride is too close to its pickup, or past it, to change here: call the operator."),
            code="not_changeable",
        ) from too_close


def _allowed(booking: Booking, pickup: datetime, vehicle_class: str, new_ride: rerouting.Ride) -> Quote:
    """The change's new price, once staff's rules allow it here (the booking itself open to a change: the
    caller asked _ensure_open first): the new pickup outside the lead time, the chauffeur's and the car's
    time free, the car assigned equipped for the party and extras, a payment page not open at the old
    price."""
    if pickup != booking.pickup_at:
        ensure_bookable(pickup)  # the new pickup within the lead time, as a checkout's (400 lead_time)
    with _as_api_refusal():
        changes.ensure_changeable(booking, pickup, vehicle_class, new_ride)
        quote = changes.repriced(booking, vehicle_class, ride=new_ride)
        changes.ensure_fits_vehicle(booking, new_ride, quote)
        changes.ensure_no_page_at_the_old_price(booking, to_cents(quote.price) - booking.amount_cents)
    return quote


def _stale(detail) -> DomainError:
    return DomainError(detail, code="stale_change_quote")


@contextmanager
def _as_api_refusal() -> Iterator[None]:
    """Staff's refusals (an assignment's, a paper's) in the API's words: `not_changeable` unless they carry
    a code of the API's own (the lead time, a field at fault)."""
    try:
        yield
    except DomainError as refused:
        if refused.code in PROBLEM_KINDS:
            raise
        raise DomainError(refused.words, code="not_changeable", field=refused.field) from refused
