"""Page sessions (README "Rate limits"): the booking page and the embedded form are served with a signed,
expiring token that their script sends back in the `Page-Session` header. A request carrying a valid one
is its own rate-limit client with a budget sized for a person, under a ceiling shared by every page
session of its address; a forged or expired one counts for nothing (the request is an ordinary API
client). One address may mint only so many sessions an hour, so reloading does not buy budget."""

import logging
import uuid

from django.conf import settings
from django.core import signing
from django.http import HttpRequest

from apikit import sliding_window
from apikit.clients import client_address

logger = logging.getLogger(__name__)

SALT = "chauffeur.page-session"


def issue(request: HttpRequest) -> str | None:
    """A new page session for the page this request is served, counted against its address's hourly
    allowance; None beyond it (the page then calls as an ordinary client). When the shared cache cannot
    count, the session is issued: the limiter fails open too."""
    try:
        minted = sliding_window.hit(
            f"page-mint:{client_address(request)}",
            limit=settings.PAGE_SESSIONS_PER_ADDRESS,
            window=settings.PAGE_SESSION_MINT_WINDOW_SECONDS,
        )
    except Exception:  # the cache backend's own errors differ (redis, breaker …)
        logger.warning("Page-session allowance unavailable; issuing a session uncounted")
    else:
        if not minted.allowed:
            return None
    return signing.dumps(uuid.uuid4().hex, salt=SALT)


def presented(request: HttpRequest) -> str | None:
    """The id of the valid page session this request carries; None without one, or for a forged, altered
    or expired one."""
    return presented_id(request.headers.get(settings.PAGE_SESSION_HEADER, "").strip())


def presented_id(token: str) -> str | None:
    if not token:
        return None
    try:
        return str(signing.loads(token, salt=SALT, max_age=settings.PAGE_SESSION_MAX_AGE_SECONDS))
    except signing.BadSignature:  # SignatureExpired is one
        return None
