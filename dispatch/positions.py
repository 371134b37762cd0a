"""The traveller sees the chauffeur coming: from "on the way" until "passenger on board", a chauffeur who
turned sharing on in their job page sends their phone's position, and the ride's traveller sees it with an
arrival time on the manage page (booking/ride_position.py reads it for every door). Sharing ends, whatever
the ride's state, at ride_position.sharing_ends_at: 3 hours after the pickup time, at most 24 hours after
consent.

The row (booking.models.ChauffeurPosition) is the consent: made when the chauffeur turns sharing on, and
deleted when they turn it off, when the passenger is on board or the ride ends in a no-show, when staff undo
"on the way" (dispatch/ride_day.py, in the move's transaction), and by the daily retention run for a ride
that ended any other way (cancelled, completed by staff, given to another chauffeur, past its end: `ended`).
Only the latest position is kept. Sharing again after staff undo "on board" or "on the way" needs the
chauffeur's consent again."""

import math
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import ride, selectors
from booking.models import Booking, BookingStatus, ChauffeurPosition, RideStep
from booking.ride_position import SHARED_STATES, sharing_ends_at
from dispatch import job_links
from dispatch.models import JobLink

# Posts closer together than this are ignored (the page sends one every 10 s; a phone's burst of fixes, or
# a script, stores no more).
MIN_INTERVAL = timedelta(seconds=5)
LONGEST_ACCURACY_M = 100_000  # a reading this unsure says nothing worth showing: ignored, not refused


class PositionRefused(DomainError):
    pass


def start_sharing(link: JobLink) -> ChauffeurPosition:
    """The chauffeur's consent, given on their job page: their positions may be shown to the ride's
    traveller until the passenger is on board. Refused while the booking is not confirmed or the ride not on
    the way or at the pickup, and once sharing has ended (sharing_ends_at)."""
    with transaction.atomic():
        booking = _locked(link)
        _refuse_unless_shared_now(booking)
        _refuse_once_ended(booking, consent_of(booking, link), timezone.now())
        sharing, _made = ChauffeurPosition.objects.get_or_create(
            booking=booking, defaults={"driver_id": link.driver_id, "consented_at": timezone.now()}
        )
        if sharing.driver_id != link.driver_id:  # a former chauffeur's row: theirs no more
            sharing.delete()
            sharing = ChauffeurPosition.objects.create(
                booking=booking, driver_id=link.driver_id, consented_at=timezone.now()
            )
    return sharing


def stop_sharing(link: JobLink) -> bool:
    """The chauffeur turns sharing off: the consent and the position go at once. Whether there was one."""
    with transaction.atomic():
        booking = _locked(link)
        deleted, _counts = ChauffeurPosition.objects.filter(booking=booking).delete()
    return bool(deleted)


def share(
    link: JobLink,
    *,
    latitude: object,
    longitude: object,
    accuracy_m: object,
    measured_at: datetime,
) -> bool:
    """Store the phone's position for the ride's traveller, over the one before. False when ignored: less
    sure than LONGEST_ACCURACY_M, sent less than MIN_INTERVAL after the last one stored, or measured before
    it. Refused, storing nothing, when the link no longer opens the job, the booking is not confirmed, the
    ride is not on the way or at the pickup, sharing has ended (sharing_ends_at), the chauffeur has not
    turned sharing on, or the position is not one."""
    latitude = _number(latitude, -90, 90)
    longitude = _number(longitude, -180, 180)
    accuracy = _number(accuracy_m, 0, math.inf) if accuracy_m is not None else None
    now = timezone.now()
    measured_at = min(measured_at, now)  # a phone's clock ahead of ours
    with transaction.atomic():
        booking = _locked(link)
        _refuse_unless_shared_now(booking)
        sharing = ChauffeurPosition.objects.select_for_update().filter(booking=booking).first()
        mine = sharing if sharing is not None and sharing.driver_id == link.driver_id else None
        _refuse_once_ended(booking, mine, now)
        if mine is None:
            raise PositionRefused(
                _("Turn on sharing your position first."), code="position_not_consented", status=409
            )
        sharing = mine
        if accuracy is not None and accuracy > LONGEST_ACCURACY_M:  # a fix from the cell tower, or none
            return False
        if sharing.received_at and now - sharing.received_at < MIN_INTERVAL:
            return False
        if sharing.measured_at and measured_at <= sharing.measured_at:
            return False
        sharing.latitude, sharing.longitude = latitude, longitude
        sharing.accuracy_m = None if accuracy is None else round(accuracy)
        sharing.measured_at, sharing.received_at = measured_at, now
        sharing.save(update_fields=["latitude", "longitude", "accuracy_m", "measured_at", "received_at"])
    return True


def consent_of(booking: Booking, link: JobLink | None) -> ChauffeurPosition | None:
    """This chauffeur's consent for the ride (the job page's switch), or None."""
    if link is None:
        return None
    return ChauffeurPosition.objects.filter(booking=booking, driver_id=link.driver_id).first()


def has_ended(booking: Booking, consent: ChauffeurPosition | None, now: datetime) -> bool:
    """Past sharing_ends_at, counted from the chauffeur's consent, or from now without one."""
    return now >= sharing_ends_at(booking, consent.consented_at if consent else now)


def forget(booking: Booking) -> int:
    """The ride's shared position and consent deleted (the passenger on board, the ride ended): inside
    the caller's transaction, the booking locked. How many rows."""
    deleted, _counts = ChauffeurPosition.objects.filter(booking=booking).delete()
    return deleted


def ended(now: datetime) -> QuerySet[ChauffeurPosition]:
    """Positions no traveller may see any more, for the retention run: the ride not going ahead (cancelled,
    completed), not on the way or at the pickup, given to another chauffeur, or past sharing_ends_at."""
    # The bound in Python, the one definition of it: the rows are a few (rides being shared right now).
    past_their_end = [
        sharing.pk
        for sharing in ChauffeurPosition.objects.select_related("booking")
        if now >= sharing_ends_at(sharing.booking, sharing.consented_at)
    ]
    last_state = (
        RideStep.objects.filter(booking=OuterRef("booking"), undone_at__isnull=True)
        .order_by("-at", "-pk")
        .values("state")[:1]
    )
    return ChauffeurPosition.objects.annotate(ride_state=Subquery(last_state)).filter(
        ~Q(booking__status=BookingStatus.CONFIRMED)
        | Q(booking__driver__isnull=True)
        | ~Q(driver_id=F("booking__driver_id"))
        | Q(ride_state__isnull=True)
        | ~Q(ride_state__in=SHARED_STATES)
        | Q(pk__in=past_their_end)
    )


def _locked(link: JobLink) -> Booking:
    """The link's booking, row-locked, while the link still opens it (job_links.opens): a link revoked,
    expired or left behind by a reassignment changes nothing."""
    booking = selectors.locked_booking(link.booking_id)
    link.refresh_from_db(fields=["revoked_at", "expires_at"])
    if not job_links.opens(link, booking):
        raise PositionRefused(
            _("This job is no longer yours; nothing is shared."), code="not_your_ride", status=404
        )
    return booking


def _refuse_unless_shared_now(booking: Booking) -> None:
    """A ride staff completed or cancelled is no longer shared, whatever its last step says."""
    if booking.status != BookingStatus.CONFIRMED or ride.progress(booking).state not in SHARED_STATES:
        raise PositionRefused(
            _("Your position is shared only from “on the way” until the passenger is on board."),
            code="position_not_shared_now",
            status=409,
        )


def _refuse_once_ended(booking: Booking, consent: ChauffeurPosition | None, now: datetime) -> None:
    if has_ended(booking, consent, now):
        raise PositionRefused(
            _("Sharing your position has ended for this ride."), code="position_sharing_ended", status=409
        )


def _number(value: object, lowest: float, highest: float) -> float:
    """A finite number within [lowest, highest]; anything else (text, true, NaN, out of range) refused."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _invalid()
    try:
        number = float(value)
    except OverflowError:  # a JSON integer of hundreds of digits
        raise _invalid() from None
    if not math.isfinite(number) or not lowest <= number <= highest:
        raise _invalid()
    return number


def _invalid() -> PositionRefused:
    return PositionRefused(_("This is not a position."), code="invalid_position", status=400)
