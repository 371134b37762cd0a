"""A traveller signs in to consent (docs/agents/oauth.md "Signing in as a traveller"): no password, a
6-digit code mailed to the address, valid CODE_LIFETIME, single use, MAX_ATTEMPTS wrong tries, and only in
the browser session that asked for it. Whatever the address, the answers are the same: nothing here looks
at bookings, so the page never tells whether an address has any."""

import hashlib
import hmac
import logging
import math
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from django.db import transaction
from django.db.models import Min
from django.http import HttpRequest
from django.utils import timezone

from apikit import sliding_window
from oauth import sign_in_codes, tasks
from oauth.models import SignInCode
from sitekit import mail_budget

logger = logging.getLogger(__name__)

CODE_LIFETIME = timedelta(minutes=10)
MAX_ATTEMPTS = 5  # wrong codes; then the code is dead and a new one must be asked for
RATE_WINDOW = timedelta(hours=1)
CODES_PER_EMAIL = 5  # codes mailed to one address in RATE_WINDOW (counted in the database)
CODES_PER_CLIENT = 20  # codes asked for from one client address in RATE_WINDOW (counted in the shared cache)
TRAVELLER_KEY = "oauth.traveller"  # the verified address, read by the consent page (docs/agents/oauth.md)
SESSION_KEY = TRAVELLER_KEY  # the same, by the name the consent side's code first gave it
AFTER_SIGN_IN_KEY = "oauth.after_sign_in"  # a page the traveller came to sign in for (their assistants)


class Verdict(StrEnum):
    SIGNED_IN = "signed_in"
    WRONG = "wrong"  # not the code; tries are left
    DEAD = "dead"  # no live code for this address in this browser: expired, used, replaced, tries used up


@dataclass(frozen=True)
class CodeRequest:
    sent: bool
    retry_minutes: int = 0  # when refused: how long until one more code may be asked for


@dataclass(frozen=True)
class Check:
    verdict: Verdict
    attempts_left: int = 0


def normalized(email: str) -> str:
    return email.strip().lower()


def session_digest(session_key: str) -> str:
    """The browser a code belongs to, stored as a digest: the codes table never holds a session key."""
    return hashlib.sha256(session_key.encode()).hexdigest()


def request_code(*, email: str, session_key: str, client: str, language: str) -> CodeRequest:
    """Mail a new code to `email` for this browser session (through the job queue), replacing the codes it
    asked for before; refused beyond the limits per address and per client, changing nothing."""
    email, now = normalized(email), timezone.now()
    wait = _email_wait(email, now)
    if wait is None:
        wait = _client_wait(client)
    if wait is None:  # every mail strangers can cause to one address, counted together
        wait = mail_budget.spend(email)
    if wait is not None:
        return CodeRequest(sent=False, retry_minutes=max(1, math.ceil(wait / 60)))
    browser = session_digest(session_key)
    salt = sign_in_codes.new_salt()
    with transaction.atomic():
        _live(email, browser, now).update(expires_at=now)  # one live code per address and browser
        row = SignInCode.objects.create(
            email=email,
            salt=salt,
            digest=sign_in_codes.digest_of(sign_in_codes.code_of(salt), salt),
            session_key=browser,
            expires_at=now + CODE_LIFETIME,
        )
        tasks.send_sign_in_code.enqueue(row.pk, language)
    return CodeRequest(sent=True)


def check_code(*, email: str, session_key: str, code: str) -> Check:
    """Whether `code` is the live code mailed to `email` for this browser session. A right one is used up;
    a wrong one costs a try (committed: the count survives the refusal)."""
    email, now = normalized(email), timezone.now()
    presented = "".join(code.split())
    with transaction.atomic():
        row = (
            _live(email, session_digest(session_key), now).select_for_update().order_by("-created_at").first()
        )
        if row is None:
            return Check(Verdict.DEAD)
        if len(presented) == sign_in_codes.DIGITS and hmac.compare_digest(
            row.digest, sign_in_codes.digest_of(presented, row.salt)
        ):
            row.used_at = now
            row.save(update_fields=["used_at"])
            return Check(Verdict.SIGNED_IN)
        row.attempts += 1
        row.save(update_fields=["attempts"])
    left = MAX_ATTEMPTS - row.attempts
    return Check(Verdict.WRONG, left) if left > 0 else Check(Verdict.DEAD)


def sign_in(request: HttpRequest, email: str) -> None:
    """The browser now belongs to the traveller with this (verified) address. A new session key, so a key
    planted before the sign-in (session fixation) is worth nothing after it."""
    request.session.cycle_key()
    request.session[TRAVELLER_KEY] = normalized(email)


def sign_in_for(request: HttpRequest, path: str) -> None:
    """The sign-in leads to `path` (the assistants page) instead of the consent page."""
    request.session[AFTER_SIGN_IN_KEY] = path


def forget_destination(request: HttpRequest) -> None:
    """A new authorization request: the sign-in leads to its consent again."""
    request.session.pop(AFTER_SIGN_IN_KEY, None)


def destination(request: HttpRequest) -> str | None:
    """The page the traveller came to sign in for, if not the consent page."""
    path = request.session.get(AFTER_SIGN_IN_KEY)
    return path if isinstance(path, str) and path else None


def sign_out(request: HttpRequest) -> None:
    request.session.pop(TRAVELLER_KEY, None)


def signed_in_traveller(request: HttpRequest) -> str | None:
    """The verified e-mail address (lower-cased) of the traveller signed in in this browser, or None."""
    email = request.session.get(TRAVELLER_KEY)
    return email if isinstance(email, str) and email else None


def _live(email: str, browser: str, now):
    return SignInCode.objects.filter(
        email=email, session_key=browser, used_at__isnull=True, expires_at__gt=now, attempts__lt=MAX_ATTEMPTS
    )


def _email_wait(email: str, now) -> float | None:
    """Seconds until the address may have one more code, or None when it may now."""
    recent = SignInCode.objects.filter(email=email, created_at__gt=now - RATE_WINDOW)
    found = recent.aggregate(oldest=Min("created_at"))
    if recent.count() < CODES_PER_EMAIL:
        return None
    return (found["oldest"] + RATE_WINDOW - now).total_seconds()


def _client_wait(client: str) -> float | None:
    """Counts this request against the client's budget; seconds to wait when it is used up. The shared
    cache down: not counted (the per-address limit, kept in the database, still holds)."""
    try:
        count = sliding_window.hit(
            f"oauth-sign-in:{client}", limit=CODES_PER_CLIENT, window=int(RATE_WINDOW.total_seconds())
        )
    except Exception:  # the cache backend's own errors differ (redis, breaker …)
        logger.warning("Sign-in code limit per client unavailable: the shared cache does not answer")
        return None
    return None if count.allowed else count.reset
