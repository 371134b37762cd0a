"""The chauffeur's job page (/chauffeur/job/<key>/): a job link's key (dispatch/job_links.py) opens its own
job and no other, on a phone, in the chauffeur's language. Its buttons move the ride on to the next state
only, when the ride's clock allows (dispatch/ride_day.py); the page says when the next move and a no-show
become possible, and asks before an early "on the way" (a form of its own, no script needed). Below, the
chauffeur's other live jobs as a schedule without links: each opens from its own job message. From "on the
way" until "on board" a switch shares the phone's position with the traveller (dispatch/positions.py): the
page's script posts it to `…/position`, with the CSRF token of the switch's form.

A key that opens nothing, whatever the reason, gets one and the same page, which never says whether the
job exists; an address that keeps trying such keys is answered "too many tries" for a while, but a key
that opens its job always does."""

import json
import logging
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from apikit import sliding_window
from apikit.clients import client_address
from apikit.errors import DomainError
from booking import calendar, history, presentation, ride, ride_stops
from booking.models import Booking, BookingStatus, RideState
from booking.ride_position import SHARED_STATES
from dispatch import flight_badge, job_links, planning, positions, ride_day
from dispatch.models import JobLink, ride_day_policy
from sitekit import phones
from sitekit.i18n import supported
from sitekit.methods import allow, json_refusal, safe

logger = logging.getLogger(__name__)

# Keys that open nothing, per client address in any window: a chauffeur mistyping a link gets a few
# tries; a script guessing keys (256 random bits each) is stopped long before it could matter. Only misses
# count, and a key that opens is never stopped: a hotel's shared address cannot lock a chauffeur out.
MISSES = 20
MISS_WINDOW_SECONDS = 15 * 60
MAPS = "https://www.google.com/maps/search/?"
DIRECTIONS = "https://www.google.com/maps/dir/?"
MAX_WAYPOINTS = 3  # Google Maps URLs on a phone route through at most three
POSITION_EVERY_SECONDS = 10  # how often the page sends the phone's position (positions.MIN_INTERVAL below)
LONGEST_POSITION_BODY = 1000  # a position is a few numbers


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
    early_start: bool  # "on the way" before its time: offered, and asked about first
    possible_from: list[str]  # when the moves not open yet open ("No-show" possible from 10:15)
    steps: list[Step]
    calendar_url: str
    pickup_map: str
    destination_map: str
    navigate: str
    navigate_to_destination: bool
    extras: list[str]  # what to bring, worded: "Child seat × 2"
    stops: list[tuple[str, str]]  # on the way, in order: (worded, its navigation link)
    sharing: "Sharing | None" = None  # the position's switch: on the way or arrived, until sharing ends


@dataclass(frozen=True)
class Sharing:
    """The switch "share my position with the traveller" and, once on, where the page sends it."""

    on: bool
    switch_url: str
    position_url: str
    every_seconds: int = POSITION_EVERY_SECONDS


@dataclass(frozen=True)
class OtherJob:
    """Another live job of the chauffeur, as the schedule lists it (it opens from its own link)."""

    booking: Booking
    progress: ride.RideProgress


@allow("GET", "HEAD", "POST")
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
        job = _job(booking, key, opened.link)
        context = {
            "job": job,
            "flight": flight_badge.badge(booking),
            "confirm_start": job.early_start and request.GET.get("confirm") == RideState.ON_THE_WAY,
            "confirmed_pickup": booking.pickup_at.isoformat() if booking.pickup_at else "",
            "not_now_url": _page_path(key, reference, asked),
            "others": _other_jobs(opened, booking),
            "driver": opened.driver,
            "asked_language": asked,
            "languages": [
                (code, name, f"?lang={code}") for code, name in (("de", "Deutsch"), ("en", "English"))
            ],
        }
        return _private(render(request, "dispatch/job_page.html", context))


@safe
def job_calendar(request: HttpRequest, key: str, reference: str | None = None) -> HttpResponse:
    """The job as a calendar entry (.ics), in the chauffeur's language, pointing back to its page."""
    opened, booking, wait = _open(request, key, reference)
    if wait is not None:
        return _too_many(request, wait)
    if booking is None:
        return _not_found(request)
    language = _language(request, opened.driver)
    link = settings.PUBLIC_BASE_URL + _page_path(key, None, language=None)
    entry = calendar.ride_event(booking, locale=language, for_chauffeur=True, link=link)
    response = HttpResponse(entry, content_type=f"{calendar.MEDIA_TYPE}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{calendar.file_name(booking)}"'
    return _private(response)


def _open(request: HttpRequest, key: str, reference: str | None):
    """(the opened link, its job, None) for a key that opens its job, whatever its address tried before;
    else (None, None, None) for a key that opens nothing or a reference that is not its own job's (the
    reference kept only for addresses saved from its own page), or (None, None, seconds to wait) once the
    address has tried too many of those."""
    opened = job_links.resolve(key)
    if opened is not None and reference in (None, opened.booking.reference):
        return opened, opened.booking, None
    return None, None, _missed(request)


def _other_jobs(opened: job_links.Opened, shown: Booking) -> list[OtherJob]:
    """The chauffeur's other confirmed jobs from today on whose link to them is live, by pickup: a job
    taken away, revoked or long past is not listed."""
    today, _end = planning.days_from_today(0, 1)
    rides = (
        Booking.objects.filter(
            driver=opened.driver,
            status=BookingStatus.CONFIRMED,
            pickup_at__gte=today,
            job_links__driver=opened.driver,
            job_links__revoked_at__isnull=True,
            job_links__expires_at__gt=timezone.now(),
        )
        .exclude(pk=shown.pk)
        .distinct()
        .prefetch_related("ride_steps")
        .order_by("pickup_at")
    )
    return [OtherJob(booking, ride.progress(booking)) for booking in rides]


def _move(request, key, reference, opened: job_links.Opened, booking: Booking) -> HttpResponse:
    target = request.POST.get("state", "")
    language = supported(request.POST.get("lang"))
    try:
        ride_day.advance(
            booking.pk,
            target,
            driver=opened.driver,
            actor=history.chauffeur(opened.driver),
            confirmed_pickup=_moment(request.POST.get("confirmed_pickup", "")),
        )
    except DomainError as refusal:  # out of turn or of time, taken off the job: nothing changed
        if refusal.code == ride_day.CONFIRM_EARLY_START:  # the question, not an error
            return redirect(_page_path(key, reference, language, confirm=RideState.ON_THE_WAY))
        messages.error(request, refusal.in_words())
    else:
        messages.success(request, _("Saved: %(state)s.") % {"state": RideState(target).label})
    return redirect(_page_path(key, reference, language))


def _moment(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if timezone.is_aware(moment) else None


def _job(booking: Booking, key: str, link: JobLink | None = None) -> Job:
    """`link`: the one that opened the page, whose sharing the switch shows (none: not sharing)."""
    progress = ride.progress(booking)
    reached = progress.times
    on_board = progress.state in (RideState.ON_BOARD, RideState.COMPLETED)
    to_destination = on_board and bool(booking.destination)
    steps = [Step(state, reached.get(state), state == progress.state) for state in ride.SEQUENCE]
    if progress.state == RideState.NO_SHOW:
        steps = [step for step in steps if step.at is not None] + [
            Step(RideState.NO_SHOW, reached[RideState.NO_SHOW], True)
        ]
    now = timezone.now()
    shared_now = booking.status == BookingStatus.CONFIRMED and progress.state in SHARED_STATES
    consent = positions.consent_of(booking, link) if shared_now else None
    upcoming = ride_day.next_moves(booking, progress, ride_day_policy())
    stops = ride_stops.of(booking)
    return Job(
        booking=booking,
        progress=progress,
        phone_href=phones.dial_link(booking.phone),
        moves=[move.state for move in upcoming if move.open(now)],
        early_start=any(move.early_start(now) for move in upcoming),
        possible_from=[
            str(ride_day.possible_from(move.state, move.opens_at, now))
            for move in upcoming
            if move.opens_at is not None and not move.open(now)
        ],
        steps=steps,
        calendar_url=_page_path(key, None, None) + "calendar.ics",
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
                # on board: to the destination through the stops, as many as a phone's Google Maps takes;
                # beyond that each stop's own link leads there
                **(
                    {"waypoints": ride_stops.SEPARATOR.join(stop.address for stop in stops)}
                    if to_destination and 0 < len(stops) <= MAX_WAYPOINTS
                    else {}
                ),
            }
        ),
        navigate_to_destination=to_destination,
        extras=presentation.to_bring(booking),
        stops=[
            (shown, DIRECTIONS + urlencode({"api": 1, "destination": stop.address, "travelmode": "driving"}))
            for shown, stop in zip(presentation.stops_shown(booking), stops, strict=True)
        ],
        sharing=Sharing(
            on=consent is not None,
            switch_url=f"{job_links.PATH}{key}/sharing",
            position_url=f"{job_links.PATH}{key}/position",
        )
        if shared_now and not positions.has_ended(booking, consent, now)
        else None,
    )


@allow("POST")
def job_sharing(request: HttpRequest, key: str) -> HttpResponse:
    """The chauffeur's switch: `share=on` consents to their position being shown to the ride's traveller
    until the passenger is on board, `share=off` stops it (the position is deleted at once). Back to the
    job page, saying what happened."""
    opened, booking, wait = _open(request, key, None)
    if wait is not None:
        return _too_many(request, wait)
    if booking is None:
        return _not_found(request)
    language = supported(request.POST.get("lang"))
    with translation.override(_language(request, opened.driver)):
        try:
            if request.POST.get("share") == "on":
                positions.start_sharing(opened.link)
                said = _("Your position is shown to the traveller until the passenger is on board.")
            else:
                positions.stop_sharing(opened.link)
                said = _("Your position is no longer shown to the traveller.")
        except DomainError as refusal:  # the ride moved on meanwhile: nothing shared
            messages.error(request, refusal.in_words())
        else:
            messages.success(request, said)
    return redirect(_page_path(key, None, language))


@allow("POST", refusal=json_refusal)
def job_position(request: HttpRequest, key: str) -> HttpResponse:
    """The phone's position from the job page's script (JSON: latitude, longitude, accuracy in metres,
    measuredAt in milliseconds since 1970), for the ride's traveller. 200 with `stored` (false: too soon
    after the last, or older), or a problem's code and words in the chauffeur's language; a key that opens
    nothing is 404, as on the page."""
    opened, booking, wait = _open(request, key, None)
    if wait is not None:
        return _private(JsonResponse({"code": "too_many_requests"}, status=429))
    if booking is None:
        return _private(JsonResponse({"code": "not_found"}, status=404))
    with translation.override(_language(request, opened.driver)):
        try:
            sent = _position_sent(request)
            stored = positions.share(
                opened.link,
                latitude=sent.get("latitude"),
                longitude=sent.get("longitude"),
                accuracy_m=sent.get("accuracy"),
                measured_at=_measured_at(sent.get("measuredAt")),
            )
        except DomainError as refusal:
            answer = {"code": refusal.code, "detail": str(refusal.in_words())}
            return _private(JsonResponse(answer, status=refusal.status or 400))
    return _private(JsonResponse({"stored": stored}))


def _position_sent(request: HttpRequest) -> dict:
    if len(request.body) > LONGEST_POSITION_BODY:
        raise positions.PositionRefused(_("This is not a position."), code="invalid_position")
    try:
        sent = json.loads(request.body)
    except ValueError:
        sent = None
    if not isinstance(sent, dict):
        raise positions.PositionRefused(_("This is not a position."), code="invalid_position")
    return sent


def _measured_at(milliseconds: object) -> datetime:
    """The phone's time of the fix (Geolocation's `timestamp`); now when it sent none that reads."""
    if isinstance(milliseconds, int | float) and not isinstance(milliseconds, bool):
        try:
            return datetime.fromtimestamp(milliseconds / 1000, tz=UTC)
        except (OverflowError, OSError, ValueError):
            pass
    return timezone.now()


def _page_path(key: str, reference: str | None, language: str | None, confirm: str | None = None) -> str:
    path = f"{job_links.PATH}{key}/" + (f"{reference}/" if reference else "")
    query = {name: value for name, value in (("lang", language), ("confirm", confirm)) if value}
    return f"{path}?{urlencode(query)}" if query else path


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


def _missed(request: HttpRequest) -> int | None:
    """Count a key that opened nothing; seconds this address must wait when it has had MISSES already in
    the window (this one then not counted), else None. A counter that cannot be reached stops nobody (as
    the API's rate limit)."""
    try:
        count = sliding_window.hit(_misses_key(request), limit=MISSES, window=MISS_WINDOW_SECONDS)
    except Exception:  # the cache backend's own errors differ (redis, breaker …)
        logger.warning("Job-link miss counter unavailable; not counting")
        return None
    return None if count.allowed else max(1, count.reset)
