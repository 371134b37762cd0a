"""Issuing and checking API tokens (docs/decisions.md §6)."""

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from django.utils import timezone

from access.models import ApiToken, Scope

TOKEN_PREFIX = "cbt_"  # noqa: S105  (a public marker, not a secret)
PREFIX_LENGTH = len(TOKEN_PREFIX) + 8  # shown in the admin; the rest stays secret
LAST_USED_EVERY = timedelta(minutes=1)  # write "last used" at most this often, not on every request


def digest_of(plain: str) -> str:
    return hashlib.sha256(plain.encode()).hexdigest()


def new_secret() -> tuple[str, str, str]:
    """A fresh token: its plain text, the prefix shown to staff, and the digest that is stored."""
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return plain, plain[:PREFIX_LENGTH], digest_of(plain)


def issue_token(
    *, name: str, scopes: list[str], expires_in_days: int | None = None, rate_limit: int | None = None
) -> tuple[ApiToken, str]:
    """A new token and its plain text, which is never stored and cannot be shown again."""
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
    )
    return token, plain


def authenticate(plain: str) -> ApiToken | None:
    """The live token behind a presented text, or None (unknown, expired or revoked)."""
    if not plain.startswith(TOKEN_PREFIX) or len(plain) > 200:
        return None
    presented = digest_of(plain)
    for token in ApiToken.objects.filter(prefix=plain[:PREFIX_LENGTH]):
        if hmac.compare_digest(token.digest, presented):
            return token if is_live(token) else None
    return None


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
