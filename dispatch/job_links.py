"""The chauffeur's job links (dispatch.models.JobLink): a key in the job message opens the job page. The key
is the link's signature (HMAC with the secret key over the link's id and creation time): only its sha256 is
stored, and the job that mails it carries the link's id, so neither the database nor the queue holds a key.
A link is issued with each assignment and opens its job until `link_valid_hours` after the ride's end,
unless staff revoke it, the job goes to another chauffeur, or the booking is no longer going ahead.
Whatever the reason a key does not open, the answer is the same: the page never says whether a job
exists."""

import base64
import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from booking import history, selectors
from booking.models import Booking, BookingStatus, ChauffeurPosition
from dispatch import windows
from dispatch.models import JobLink, ride_day_policy
from fleet.models import Driver

PATH = "/chauffeur/job/"
KEY_SALT = "dispatch.job-link"  # HMAC-SHA256: 256 bits, beyond guessing whatever the rate limit lets through
LONGEST_KEY = 100  # anything longer is not ours: refused before it is hashed
# The states in which a job's page opens: assigned and going ahead, or done (until the link expires).
OPEN_STATES = (BookingStatus.CONFIRMED, BookingStatus.COMPLETED)


@dataclass(frozen=True)
class Opened:
    """A key that opens: its link, the job, and the chauffeur it was given to (the job's driver)."""

    link: JobLink
    booking: Booking
    driver: Driver


def digest_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def key_of(link: JobLink) -> str:
    """The link's key, as only the holder of SECRET_KEY can write it (a new secret key voids every link)."""
    mac = salted_hmac(KEY_SALT, f"{link.pk}|{link.created_at.isoformat()}", algorithm="sha256").digest()
    return f"{link.pk}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


def job_url(key: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}{PATH}{key}/"


def expiry(booking: Booking) -> datetime:
    """When a link to this job stops opening: the policy's hours after the ride's end."""
    window = windows.ride_window(booking)
    end = window.end if window else timezone.now()
    return end + timedelta(hours=ride_day_policy().link_valid_hours)


def issue(booking: Booking, driver: Driver) -> tuple[JobLink, str]:
    """A new link to `booking` for `driver`, and its key, which is never stored (the job message carries
    it). Live links to the job for any other chauffeur are revoked. Called inside the assignment's
    transaction, so the job and its link stand or fall together."""
    now = timezone.now()
    JobLink.objects.filter(booking=booking, revoked_at__isnull=True).exclude(driver=driver).update(
        revoked_at=now
    )
    ChauffeurPosition.objects.filter(booking=booking).exclude(driver=driver).delete()  # theirs no more
    # The key signs the row's id: stored first under a placeholder hash nobody can have the key of.
    link = JobLink.objects.create(
        booking=booking, driver=driver, key_hash=secrets.token_hex(32), expires_at=expiry(booking)
    )
    key = key_of(link)
    link.key_hash = digest_of(key)
    link.save(update_fields=["key_hash"])
    return link, key


def follow_change(booking: Booking) -> int:
    """A ride moved to another time: its live links expire after the new end. How many were moved."""
    return JobLink.objects.filter(booking=booking, revoked_at__isnull=True).update(expires_at=expiry(booking))


def live(booking: Booking) -> list[JobLink]:
    """The links to this job that still open it (the booking's page lists them)."""
    if booking.status not in OPEN_STATES or booking.driver_id is None:  # a link is for a driver
        return []
    return list(
        JobLink.objects.filter(
            booking=booking,
            driver_id=booking.driver_id,
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
        ).select_related("driver")
    )


def revoke(booking_id: int, *, actor: str) -> int:
    """Staff take back every live link to the job (a lost phone, a link sent to the wrong person); the job
    itself stays assigned. How many were revoked; recorded in the booking's history."""
    with transaction.atomic():
        booking = selectors.locked_booking(booking_id)
        revoked = JobLink.objects.filter(booking=booking, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        ChauffeurPosition.objects.filter(booking=booking).delete()  # a lost phone shows nobody the way
        if revoked:
            history.record(booking, history.Kind.ASSIGNMENT, history.said("Job link revoked"), actor=actor)
    return revoked


def resolve(key: str) -> Opened | None:
    """The link `key` opens now, or None: unknown, expired, revoked, another chauffeur's job by now, or a
    booking no longer going ahead all answer alike."""
    if not key or len(key) > LONGEST_KEY:
        return None
    link = (
        JobLink.objects.filter(key_hash=digest_of(key))
        .select_related("booking__driver", "booking__vehicle__vehicle_class", "driver")
        .first()
    )
    if link is None or not opens(link, link.booking):
        return None
    return Opened(link, link.booking, link.driver)


def opens(link: JobLink, booking: Booking) -> bool:
    """Whether `link` still opens `booking` now: not revoked or expired, and the job still its chauffeur's
    and going ahead (or done). Asked again of a booking just locked, before a change made through the link."""
    if link.revoked_at is not None or link.expires_at <= timezone.now():
        return False
    return booking.status in OPEN_STATES and booking.driver_id == link.driver_id
