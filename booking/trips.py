"""A return trip: the way out and the way back are two bookings, each a ride of its own (its chauffeur,
job link, ride's day, reminders and cancellation terms), paid by one payment whose shares say what each ride
cost. Until that payment arrives they move together (paid, expired, cancelled: one payment page); once paid,
each ride is changed, cancelled and refunded on its own. Locks: the way out first, then the way back."""

from dataclasses import replace
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking.checkout import (
    BookingRequest,
    PricedRide,
    ensure_amount,
    ensure_bookable,
    price_the_ride,
    store_booking,
)
from booking.models import Booking, BookingStatus
from pricing.quote import BookingType
from sitekit import l10n

Trip = list[tuple[BookingRequest, PricedRide]]  # its rides as asked, each with the server's route and price


def way_back_of(booking: Booking) -> Booking | None:
    try:
        return booking.way_back
    except Booking.DoesNotExist:
        return None


def legs(booking: Booking) -> list[Booking]:
    """The rides of the booking's trip, the way out first; the booking alone when it is no return trip."""
    if booking.way_out is not None:  # fetched with the booking where a list selected it
        return [booking.way_out, booking]
    back = way_back_of(booking)
    return [booking, back] if back is not None else [booking]


def locked_legs(booking: Booking) -> list[Booking]:
    """The trip's rides row-locked, the way out first (call inside transaction.atomic; the way out is stored
    first, so the order of their keys is the lock order); `booking` itself among them, as the caller holds
    it."""
    way_out = booking.way_out_id or booking.pk
    rides = Booking.objects.select_for_update(of=("self",)).filter(Q(pk=way_out) | Q(way_out_id=way_out))
    locked = rides.order_by("pk")
    return [booking if ride.pk == booking.pk else ride for ride in locked]


def other_leg(booking: Booking) -> Booking | None:
    """The trip's other ride: the way back of a way out, the way out of a way back."""
    return booking.way_out if booking.way_out is not None else way_back_of(booking)


def price_the_trip(ride: BookingRequest) -> Trip:
    """The ride with its route and price, and its way back's when it has one: the way back is checked
    (a transfer's, picked up after the way out arrives, within the lead time) before anything is stored."""
    way_out = price_the_ride(ride)
    if ride.way_back is None:
        return [(ride, way_out)]
    if ride.booking_type != BookingType.DISTANCE or ride.tour_name:
        raise DomainError(
            _("A way back is booked with a transfer; book the way back of a hire or a tour on its own."),
            field="way_back",
        )
    if ride.pickup is None:
        raise DomainError(_("A return trip needs the way out's pickup time."), field="pickup")
    back = ride.way_back
    arrival = way_out.route.estimated_arrival or ride.pickup + timedelta(seconds=way_out.route.duration_s)
    _ensure_after(arrival, back.pickup, field="way_back")  # the way out's stops and their waits counted
    try:
        ensure_bookable(back.pickup)
    except DomainError as refusal:  # the way back's own pickup, not the way out's
        refusal.field = "way_back"
        raise
    origin, destination = back.origin or ride.destination, back.destination or ride.origin
    if origin.strip().casefold() == destination.strip().casefold():
        raise DomainError(
            _("The way back would start where it ends: name where it goes, or leave its addresses out."),
            field="way_back",
        )
    back_ride = replace(
        ride,
        origin=origin,
        destination=destination,
        pickup=back.pickup,
        flight_number=back.flight_number,
        stops=back.stops,
        way_back=None,
    )
    try:
        way_back = price_the_ride(back_ride)
    except DomainError as refusal:
        if refusal.field == "flight_number":  # the way back's own flight, not the way out's
            refusal.field = "way_back"
        raise
    return [(ride, way_out), (back_ride, way_back)]


def priced_trip(ride: BookingRequest, amount_cents: int) -> Trip:
    """The trip as a checkout asks it: its pickup within the lead time, routed and priced by the server, and
    `amount_cents` its price (both rides' together); refused before anything is stored."""
    ensure_bookable(ride.pickup)
    trip = price_the_trip(ride)
    ensure_amount(amount_cents, *(priced.quote for _ride, priced in trip))
    return trip


def price_cents(rides: list[Booking]) -> int:
    """What the rides cost together: a booking's price, or a return trip's two on its one payment page."""
    return sum(ride.amount_cents for ride in rides)


def store_trip(trip: Trip, **origin) -> Booking:
    """Store the trip's rides (origin: channel, api_token_id …); the way out, whose way back names it."""
    with transaction.atomic():
        first = store_booking(*trip[0], **origin)
        for ride, priced in trip[1:]:
            store_booking(ride, priced, way_out=first, **origin)
    return first


def ensure_in_order(booking: Booking, pickup: datetime) -> None:
    """A return trip's ride moved to `pickup` by staff: its way back still after its way out arrives (a
    cancelled other ride binds nothing)."""
    other = other_leg(booking)
    if other is None or other.status == BookingStatus.CANCELLED or other.pickup_at is None:
        return
    way_out, out_pickup, back_pickup = (
        (other, other.pickup_at, pickup) if booking.way_out_id else (booking, pickup, other.pickup_at)
    )
    _ensure_after(out_pickup + _underway(way_out), back_pickup, field="pickup")


def _underway(way_out: Booking) -> timedelta:
    """How long the way out takes from its pickup, its stops' waits counted (its stored arrival)."""
    if way_out.estimated_arrival and way_out.pickup_at:
        return way_out.estimated_arrival - way_out.pickup_at
    return timedelta(seconds=way_out.duration_s or 0)


def _ensure_after(arrival: datetime, back_pickup: datetime, *, field: str) -> None:
    arrival = timezone.localtime(arrival)
    if back_pickup <= arrival:
        raise DomainError(
            "The way back's pickup must be after the way out arrives "
            f"({arrival.isoformat(timespec='minutes')}).",
            shown=format_lazy(
                _("The way back's pickup must be after the way out arrives ({arrival})."),
                arrival=l10n.day_time(arrival),
            ),
            field=field,
        )
