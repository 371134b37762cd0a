"""The chauffeur's position as the ride's traveller sees it, from "on the way" until "on board": where the
phone last was, and when the chauffeur should be at the pickup. Dispatch stores it (dispatch/positions.py:
the chauffeur's consent and their phone's posts), so every door (the manage page, the API, MCP) shows the
same. Nothing is shown of a ride no longer on the way, or of a chauffeur no longer on the job."""

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from booking import ride, ride_stops
from booking.models import Booking, BookingStatus, ChauffeurPosition, RideState
from places.geo import LatLng
from places.providers.base import PlacesError
from places.services import drive_without_provider, estimate_route
from sitekit import tolerant_cache

logger = logging.getLogger(__name__)

# The states in which the traveller may see the chauffeur coming: on the way, and waiting at the pickup.
SHARED_STATES = (RideState.ON_THE_WAY, RideState.ARRIVED)
# A position received longer ago than this gets no arrival time: the phone stopped sending (tunnel, battery).
STALE_AFTER = timedelta(minutes=10)
# Sharing ends this long after the pickup time, whatever the ride's state: a chauffeur who forgets "on
# board" is not followed home.
AFTER_PICKUP = timedelta(hours=3)
# ... and at most this long after the chauffeur turned it on (a ride with no pickup time, or a very early
# start).
KEPT_AT_MOST = timedelta(hours=24)
# The pickup's coordinates, as the places provider resolves its address, kept per ride: a remote provider
# is asked at most once per ride and address (its own route cache usually answers from the checkout's).
PICKUP_TTL = 6 * 3600
PICKUP_UNKNOWN_TTL = 5 * 60  # an address the provider could not place is asked again only after this


@dataclass(frozen=True)
class SharedPosition:
    latitude: float
    longitude: float
    accuracy_m: int | None  # the phone's own estimate of its error, in metres
    measured_at: datetime  # when the phone measured it
    eta: datetime | None  # at the pickup, estimated; None once arrived, or without a fresh position
    pickup: LatLng | None = None  # the pickup's coordinates, when the provider could place it


def sharing_ends_at(booking: Booking, consented_at: datetime) -> datetime:
    """When sharing the chauffeur's position for this ride ends, whatever its state: AFTER_PICKUP past the
    pickup time (a flight's move included), or KEPT_AT_MOST after consent if that comes first."""
    latest = consented_at + KEPT_AT_MOST
    return latest if booking.pickup_at is None else min(latest, booking.pickup_at + AFTER_PICKUP)


def shared_position(booking: Booking, *, now: datetime | None = None) -> SharedPosition | None:
    """The chauffeur's latest position for the ride's traveller, or None: nothing shared, sharing not
    consented or ended (sharing_ends_at), the ride not on the way or at the pickup, or the chauffeur no
    longer on the job."""
    if booking.status != BookingStatus.CONFIRMED:
        return None
    state = ride.progress(booking).state  # first: a list's ride steps are prefetched
    if state not in SHARED_STATES:
        return None
    kept = _kept(booking)
    if kept is None or kept.driver_id != booking.driver_id:
        return None
    if kept.latitude is None or kept.longitude is None or kept.measured_at is None:  # no fix yet
        return None
    now = now or timezone.now()
    if now >= sharing_ends_at(booking, kept.consented_at):
        return None
    here = LatLng(kept.latitude, kept.longitude)
    pickup = pickup_point(booking)
    eta = None
    # Fresh by our clock: a phone's slow clock must not hide the arrival time.
    fresh = kept.received_at is not None and now - kept.received_at <= STALE_AFTER
    if state == RideState.ON_THE_WAY and pickup is not None and fresh:
        # never before now: a position measured minutes ago may be "due" already
        eta = max(now, arrival(here, pickup, kept.measured_at)).replace(microsecond=0)
    return SharedPosition(
        latitude=kept.latitude,
        longitude=kept.longitude,
        accuracy_m=kept.accuracy_m,
        measured_at=kept.measured_at,
        eta=eta,
        pickup=pickup,
    )


def _kept(booking: Booking) -> ChauffeurPosition | None:
    """Read afresh: the relation's attribute would keep what it read first."""
    return ChauffeurPosition.objects.filter(booking_id=booking.pk).first()


def arrival(here: LatLng, pickup: LatLng, measured_at: datetime) -> datetime:
    """When a car at `here` reaches `pickup`: the straight line with the offline provider's road model (its
    detour factor, city speed for the first kilometres), not a route asked of the provider. The position
    moves every few seconds; a remote route per position would cost a call each, and in town the estimate's
    error is a few minutes, which the next position corrects."""
    return (measured_at + drive_without_provider(here, pickup)).replace(microsecond=0)


def pickup_point(booking: Booking) -> LatLng | None:
    """The pickup's coordinates as the ride's route starts (the same route question as the checkout's, so
    a remote provider's route cache usually answers), kept in the shared cache per ride and address."""
    key = "ride-position:pickup:" + hashlib.sha256(f"{booking.pk}|{booking.origin}".encode()).hexdigest()
    kept = tolerant_cache.read(key, what="the pickup's point")
    if kept is not None:
        return LatLng(*kept) if kept else None
    stops = ride_stops.of(booking)
    try:
        route = estimate_route(
            origin=booking.origin,
            destination=booking.destination or booking.origin,  # an hourly hire "as directed"
            pickup=booking.pickup_at,
            stops=ride_stops.endpoints(stops),
            stopping=ride_stops.stopping(stops),
        )
        point: LatLng | None = route.start
    except PlacesError as failure:
        logger.info("Pickup of %s not placed: %s", booking.reference, failure.code)
        point = None
    kept_as = (point.lat, point.lng) if point else ()
    tolerant_cache.keep(key, kept_as, PICKUP_TTL if point else PICKUP_UNKNOWN_TTL, what="the pickup's point")
    return point
