"""The chauffeur's job page (/chauffeur/job/<key>/): a job link's key (dispatch/job_links.py) opens one job
on a phone, in the chauffeur's language, with the same chauffeur's other jobs of today and later, each
opened through the same key. Its buttons move the ride on to the next state only (dispatch/ride_day.py).

A key that opens nothing, whatever the reason, gets one and the same page, which never says whether the
job exists; an address that keeps trying such keys is stopped for a while."""

import logging
import math
from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from booking import calendar, history, ride
from booking.models import Booking, BookingStatus, RideState
from chauffeur.api import sliding_window
from chauffeur.api.clients import client_address
from chauffeur.errors import DomainError
from chauffeur.i18n import supported
from dispatch import job_links, planning, ride_day

logger = logging.getLogger(__name__)

# Keys that open nothing, per client address in any window: a chauffeur mistyping a link gets a few
# tries; a script guessing keys (256 random bits each) is stopped long before it could matter.
MISSES = 20
MISS_WINDOW_SECONDS = 15 * 60
MAPS = "https://www.google.com/maps/search/?"
DIRECTIONS = "https://www.google.com/maps/dir/?"


@dataclass(frozen=True)
class Step:
    state: RideState
    at: object  # the moment it was reached, or None
    current: bool


@dataclass(frozen=True)
class Job:
    """One job as the page shows it."""

    booking: Booking
    progress: ride.RideProgress
    phone_href: str
    moves: list[RideState]
    steps: list[Step]
    page_url: str
    calendar_url: str
    pickup_map: str
    destination_map: str
    navigate: str
    navigate_to_destination: bool


@require_http_methods(["GET", "HEAD", "POST"])
def job_page(request: HttpRequest, key: str, reference: str | None = None) -> HttpResponse:
    opened, booking, wait = _open(request, key, reference)
    if wait is not None:
        return _too_many(request, wait)
    if booking is None:
        return _not_found(request)
    language, asked = _language(request, opened.driver), supported(request.GET.get("lang"))
    with translation.override(language):
        if request.method == "POST":
            return _move(request, key, reference, opened, booking)
        context = {
            "job": _job(booking, key),
            "others": [_job(other, key) for other in _other_jobs(opened, booking)],
            "driver": opened.driver,
            "asked_language": asked,
            "languages": [
                (code, name, f"?lang={code}") for code, name in (("de", "Deutsch"), ("en", "English"))
            ],
            "home_url": _page_path(key, None, asked),
            "is_link_job": reference is None,
        }
        return _private(render(request, "dispatch/job_page.html", context))


@require_safe
def job_calendar(request: HttpRequest, key: str, reference: str | None = None) -> HttpResponse:
    """The job as a calendar entry (.ics), in the chauffeur's language, pointing back to its page."""
    opened, booking, wait = _open(request, key, reference)
    if wait is not None:
        return _too_many(request, wait)
    if booking is None:
        return _not_found(request)
    language = _language(request, opened.driver)
    link = settings.PUBLIC_BASE_URL + _page_path(key, reference, language=None)
    entry = calendar.ride_event(booking, locale=language, for_chauffeur=True, link=link)
    response = HttpResponse(entry, content_type=f"{calendar.MEDIA_TYPE}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{calendar.file_name(booking)}"'
    return _private(response)


def _open(request: HttpRequest, key: str, reference: str | None):
    """(the opened link, the job asked for, None), or (…, None, None) for a key or job that does not open,
    or (None, None, seconds to wait) for an address that tried too many keys."""
    wait = _stopped(request)
    if wait is not None:
        return None, None, wait
    opened = job_links.resolve(key)
    booking = None
    if opened is not None:
        booking = opened.booking if reference is None else _same_chauffeurs(opened, reference)
    if booking is None:
        _missed(request)
    return opened, booking, None


def _same_chauffeurs(opened: job_links.Opened, reference: str) -> Booking | None:
    """Another job of the link's chauffeur, opened through the link (their page lists it)."""
    return (
        Booking.objects.filter(reference=reference, driver=opened.driver, status__in=job_links.OPEN_STATES)
        .select_related("vehicle__vehicle_class")
        .first()
    )


def _other_jobs(opened: job_links.Opened, shown: Booking) -> list[Booking]:
    """The chauffeur's confirmed jobs from today on, but the one shown, by pickup."""
    today, _end = planning.days_from_today(0, 1)
    return list(
        Booking.objects.filter(driver=opened.driver, status=BookingStatus.CONFIRMED, pickup_at__gte=today)
        .exclude(pk=shown.pk)
        .select_related("vehicle__vehicle_class")
        .prefetch_related("ride_steps")
        .order_by("pickup_at")
    )


def _move(request, key, reference, opened: job_links.Opened, booking: Booking) -> HttpResponse:
    target = request.POST.get("state", "")
    try:
        ride_day.advance(booking.pk, target, driver=opened.driver, actor=history.chauffeur(opened.driver))
    except DomainError as refusal:  # out of turn, too early for a no-show, taken off the job: nothing changed
        messages.error(request, refusal.in_words())
    else:
        messages.success(request, _("Saved: %(state)s.") % {"state": RideState(target).label})
    return redirect(_page_path(key, reference, supported(request.POST.get("lang"))))


def _job(booking: Booking, key: str) -> Job:
    progress = ride.progress(booking)
    reached = progress.times
    on_board = progress.state in (RideState.ON_BOARD, RideState.COMPLETED)
    to_destination = on_board and bool(booking.destination)
    steps = [Step(state, reached.get(state), state == progress.state) for state in ride.SEQUENCE]
    if progress.state == RideState.NO_SHOW:
        steps = [step for step in steps if step.at is not None] + [
            Step(RideState.NO_SHOW, reached[RideState.NO_SHOW], True)
        ]
    return Job(
        booking=booking,
        progress=progress,
        phone_href="tel:" + "".join(ch for ch in booking.phone if ch.isdigit() or ch == "+")
        if booking.phone
        else "",
        moves=ride_day.moves_now(booking, progress),
        steps=steps,
        page_url=_page_path(key, booking.reference, None),
        calendar_url=_page_path(key, booking.reference, None) + "calendar.ics",
        pickup_map=MAPS + urlencode({"api": 1, "query": booking.origin}),
        destination_map=MAPS + urlencode({"api": 1, "query": booking.destination})
        if booking.destination
        else "",
        navigate=DIRECTIONS
        + urlencode(
            {
                "api": 1,
                "destination": booking.destination if to_destination else booking.origin,
                "travelmode": "driving",
            }
        ),
        navigate_to_destination=to_destination,
    )


def _page_path(key: str, reference: str | None, language: str | None) -> str:
    path = f"{job_links.PATH}{key}/" + (f"{reference}/" if reference else "")
    return f"{path}?lang={language}" if language else path


def _language(request: HttpRequest, driver) -> str:
    """The one asked for (`?lang=`, the page's switch), else German for a chauffeur whose first language it
    is, else English. Without a chauffeur (a page that opens nothing): the browser's."""
    asked = supported(request.GET.get("lang") or request.POST.get("lang"))
    if asked:
        return asked
    if driver is None:
        return "de" if (translation.get_language() or "").startswith("de") else "en"
    return driver.locale


def _not_found(request: HttpRequest) -> HttpResponse:
    """The one answer to every key or job that does not open: it names no reason."""
    with translation.override(_language(request, None)):
        return _private(render(request, "dispatch/job_not_found.html", status=404))


def _too_many(request: HttpRequest, wait: int) -> HttpResponse:
    with translation.override(_language(request, None)):
        context = {"minutes": max(1, math.ceil(wait / 60))}
        response = render(request, "dispatch/job_not_found.html", context, status=429)
    response["Retry-After"] = str(max(1, wait))
    return _private(response)


def _private(response: HttpResponse) -> HttpResponse:
    """A job's page holds a passenger's name and phone: never cached, indexed or framed."""
    response["Cache-Control"] = "no-store"
    response["X-Robots-Tag"] = "noindex, nofollow"
    # The key is in the address: other sites (the maps) must not learn it. Same-origin, not no-referrer:
    # Chromium then sends the Origin the CSRF check reads with each move.
    response["Referrer-Policy"] = "same-origin"
    response["X-Frame-Options"] = "DENY"
    return response


def _misses_key(request: HttpRequest) -> str:
    return f"job-link-miss:{client_address(request)}"


def _stopped(request: HttpRequest) -> int | None:
    """Seconds this address must wait, having tried MISSES keys that opened nothing; None to go on. A
    counter that cannot be reached stops nobody (as the API's rate limit)."""
    try:
        count = sliding_window.hit(_misses_key(request), limit=MISSES, window=MISS_WINDOW_SECONDS, cost=0)
    except Exception:  # the cache backend's own errors differ (redis, breaker …)
        logger.warning("Job-link miss counter unavailable; not counting")
        return None
    return count.reset if count.count >= MISSES else None


def _missed(request: HttpRequest) -> None:
    try:
        sliding_window.hit(_misses_key(request), limit=MISSES, window=MISS_WINDOW_SECONDS)
    except Exception:  # as above
        logger.warning("Job-link miss counter unavailable; not counting")
