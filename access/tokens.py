"""Issuing and checking API tokens (docs/decisions.md §6). Each process keeps the tokens it has looked up
for CACHE_SECONDS, and forgets them all as soon as the shared token version moves: every change (revoke,
an edit or deletion in the admin) moves it once committed, so no worker serves a revoked token after the
next rate-limit round trip has brought the new version (apikit/versions.py)."""

import hashlib
import hmac
import logging
import secrets
import time
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from access.models import ApiToken, Scope
from apikit.versions import SharedVersion

logger = logging.getLogger(__name__)

TOKEN_PREFIX = "cbt_"  # noqa: S105  (a public marker, not a secret)
PREFIX_LENGTH = len(TOKEN_PREFIX) + 8  # shown in the admin; the rest stays secret
LAST_USED_EVERY = timedelta(minutes=1)  # write "last used" at most this often, not on every request
TOKENS = SharedVersion("tokens")
CACHE_SECONDS = 30  # also bounds how long a change made behind the admin's back (SQL, a shell) goes unseen
CACHE_SIZE = 1000  # distinct tokens kept; beyond, the cache starts over

_cache: dict[str, tuple[ApiToken, float]] = {}  # by digest: the token and when it was read
_cache_version: list[object] = [object()]  # the version the cache was filled under


def digest_of(plain: str) -> str:
    return hashlib.sha256(plain.encode()).hexdigest()


def new_secret() -> tuple[str, str, str]:
    """A fresh token: its plain text, the prefix shown to staff, and the digest that is stored."""
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return plain, plain[:PREFIX_LENGTH], digest_of(plain)


def issue_token(
    *,
    name: str,
    scopes: list[str],
    expires_in_days: int | None = None,
    rate_limit: int | None = None,
    company_account_id: int | None = None,
) -> tuple[ApiToken, str]:
    """A new token and its plain text, which is never stored and cannot be shown again. Tied to a company
    account, its checkouts may book on that account (booking/on_account.py)."""
    unknown = set(scopes) - set(Scope.values)
    if unknown or not scopes:
        raise ValueError(
            f"Scopes must be among {', '.join(Scope.values)}; got {', '.join(scopes) or 'none'}."
        )
    plain, prefix, digest = new_secret()
    token = ApiToken.objects.create(
        name=name,
        prefix=prefix,
        digest=digest,
        scopes=sorted(set(scopes)),
        expires_at=timezone.now() + timedelta(days=expires_in_days) if expires_in_days else None,
        rate_limit=rate_limit,
        company_account_id=company_account_id,
    )
    return token, plain


def authenticate(plain: str) -> ApiToken | None:
    """The live token behind a presented text, or None (unknown, expired or revoked)."""
    if not plain.startswith(TOKEN_PREFIX) or len(plain) > 200:
        return None
    presented = digest_of(plain)
    try:
        version = TOKENS.current()
    except Exception:  # the shared cache is down (the limiter logs it): only the database can be trusted
        token = _lookup(plain, presented)
    else:
        token = _cached(plain, presented, version)
    return token if token is not None and is_live(token) else None


def _cached(plain: str, presented: str, version: int | None) -> ApiToken | None:
    if _cache_version[0] != version:
        _cache.clear()
        _cache_version[0] = version
    now = time.monotonic()
    found = _cache.get(presented)
    if found is not None and now - found[1] < CACHE_SECONDS:
        return found[0]
    token = _lookup(plain, presented)
    if token is not None:  # unknown texts are not kept: nobody can fill the cache with them
        if len(_cache) >= CACHE_SIZE:
            _cache.clear()
        _cache[presented] = (token, now)
    return token


def _lookup(plain: str, presented: str) -> ApiToken | None:
    for token in ApiToken.objects.filter(prefix=plain[:PREFIX_LENGTH]):
        if hmac.compare_digest(token.digest, presented):
            return token
    return None


def tokens_changed() -> None:
    """Every process forgets the tokens it keeps, once the current transaction commits."""
    transaction.on_commit(_announce_change)


def _announce_change() -> None:
    try:
        TOKENS.bump()
    except Exception:  # the shared cache is down (its breaker says so at once): the change is committed
        _cache.clear()  # this process forgets now; the others read the database while the cache is down,
        logger.warning(  # and drop what they kept before within CACHE_SECONDS
            "Token change not announced: the shared cache is unreachable; other processes may accept "
            "a changed token for up to %s seconds",
            CACHE_SECONDS,
        )


def is_live(token: ApiToken, now: datetime | None = None) -> bool:
    now = now or timezone.now()
    return token.revoked_at is None and (token.expires_at is None or token.expires_at > now)


def record_use(token: ApiToken) -> None:
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now


def revoke(token: ApiToken) -> None:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        tokens_changed()


def revoke_all(chosen) -> list[ApiToken]:
    """Revoke the live tokens among `chosen` (a queryset) together: all or none, and the shared version
    moves once, after the commit. The tokens revoked now are returned."""
    with transaction.atomic():
        live = list(
            ApiToken.objects.select_for_update().filter(pk__in=chosen.values("pk"), revoked_at__isnull=True)
        )
        now = timezone.now()
        ApiToken.objects.filter(pk__in=[token.pk for token in live]).update(revoked_at=now)
        for token in live:
            token.revoked_at = now
        if live:
            tokens_changed()
    return live
