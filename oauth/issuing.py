"""The token endpoint's rules (RFC 6749 §4.1.3, §6; RFC 7636; RFC 8707; OAuth 2.1 §4.3.1): a code is
exchanged once, with its PKCE verifier, for an access token (an ApiToken row, so authenticate(), scopes,
rate limits and revocation treat it like any token) and a refresh token, which is replaced at each use.
A code or refresh token presented a second time means one of the two presenters stole it: the grant is
revoked, so neither keeps access."""

import secrets
from dataclasses import dataclass
from datetime import timedelta

from authlib.oauth2.rfc7636.challenge import CODE_VERIFIER_PATTERN, compare_s256_code_challenge
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from access import tokens
from access.models import ApiToken
from oauth.clients import same_redirect_uri
from oauth.errors import InvalidGrantError, InvalidRequestError, InvalidScopeError, InvalidTargetError
from oauth.grants import revoke_grant, token_name
from oauth.models import AuthorizationCode, OAuthClient, OAuthGrant, RefreshToken
from oauth.requests import requested_scopes

REFRESH_PREFIX = "cbr_"


@dataclass(frozen=True)
class IssuedTokens:
    access_token: str
    refresh_token: str
    expires_in: int
    scopes: list[str]

    def response(self) -> dict:
        """RFC 6749 §5.1."""
        return {
            "access_token": self.access_token,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": self.refresh_token,
            "scope": " ".join(self.scopes),
        }


class Replayed(Exception):
    """A used code or refresh token came back: its grant must be revoked (after the refusal's
    transaction, so the revocation is not rolled back with it)."""

    def __init__(self, grant: OAuthGrant, what: str):
        super().__init__(what)
        self.grant, self.what = grant, what


def exchange_code(
    *, client: OAuthClient, code: str, redirect_uri: str, code_verifier: str, resource: str
) -> IssuedTokens:
    if not code:
        raise InvalidRequestError("code is required.")
    if not code_verifier:
        raise InvalidRequestError("code_verifier is required (PKCE).")
    if not redirect_uri:
        raise InvalidRequestError("redirect_uri is required.")
    try:
        return _exchange_code(client, code, redirect_uri, code_verifier, resource)
    except Replayed as replay:
        revoke_grant(replay.grant, actor=f"replay detection ({replay.what})")
        raise InvalidGrantError("The authorization code was already used; its tokens are revoked.") from None


def _exchange_code(
    client: OAuthClient, code: str, redirect_uri: str, code_verifier: str, resource: str
) -> IssuedTokens:
    now = timezone.now()
    with transaction.atomic():
        found = (
            AuthorizationCode.objects.select_for_update()
            .select_related("grant__client")
            .filter(digest=tokens.digest_of(code))
            .first()
        )
        if found is None or found.grant.client_id != client.pk:
            raise InvalidGrantError("The authorization code is unknown or was issued to another client.")
        if found.used_at is not None:
            raise Replayed(found.grant, "authorization code")
        if found.expires_at <= now or found.grant.revoked_at is not None:
            raise InvalidGrantError("The authorization code has expired or was revoked.")
        if same_redirect_uri(redirect_uri) != found.redirect_uri:
            raise InvalidGrantError("redirect_uri differs from the authorization request's.")
        if not CODE_VERIFIER_PATTERN.match(code_verifier) or not compare_s256_code_challenge(
            code_verifier, found.code_challenge
        ):
            raise InvalidGrantError("The code_verifier does not match the code_challenge (PKCE S256).")
        if resource and resource != found.resource:
            raise InvalidTargetError("resource differs from the authorization request's.")
        AuthorizationCode.objects.filter(pk=found.pk).update(used_at=now)
        return _issue(found.grant, found.scopes)


def refresh(*, client: OAuthClient, refresh_token: str, scope: str | None, resource: str) -> IssuedTokens:
    if not refresh_token:
        raise InvalidRequestError("refresh_token is required.")
    try:
        return _refresh(client, refresh_token, scope, resource)
    except Replayed as replay:
        revoke_grant(replay.grant, actor=f"replay detection ({replay.what})")
        raise InvalidGrantError("The refresh token was already used; the whole grant is revoked.") from None


def _refresh(client: OAuthClient, plain: str, scope: str | None, resource: str) -> IssuedTokens:
    now = timezone.now()
    with transaction.atomic():
        found = (
            RefreshToken.objects.select_for_update()
            .select_related("grant__client")
            .filter(digest=tokens.digest_of(plain))
            .first()
        )
        if found is None or found.grant.client_id != client.pk:
            raise InvalidGrantError("The refresh token is unknown or was issued to another client.")
        grant = found.grant
        if found.used_at is not None:
            if grant.revoked_at is not None:
                raise InvalidGrantError("The refresh token was revoked.")
            raise Replayed(grant, "refresh token")
        if found.expires_at <= now or grant.revoked_at is not None:
            raise InvalidGrantError("The refresh token has expired or was revoked.")
        if resource and resource != grant.resource:
            raise InvalidTargetError("resource differs from the one the grant is for.")
        scopes = grant.scopes
        if scope:  # may narrow, never widen (RFC 6749 §6)
            try:
                scopes = requested_scopes(scope, grant.scopes)
            except InvalidScopeError:
                raise InvalidScopeError("scope may only name scopes of the original grant.") from None
        RefreshToken.objects.filter(pk=found.pk).update(used_at=now)
        return _issue(grant, scopes)


def _issue(grant: OAuthGrant, scopes: list[str]) -> IssuedTokens:
    """A fresh access token and refresh token under `grant` (inside the caller's transaction)."""
    now = timezone.now()
    client = grant.client
    plain, prefix, digest = tokens.new_secret()
    ApiToken.objects.create(
        name=token_name(grant),
        prefix=prefix,
        digest=digest,
        scopes=sorted(scopes),
        expires_at=now + timedelta(seconds=settings.OAUTH_ACCESS_TOKEN_SECONDS),
        rate_limit=client.rate_limit,
        grant=grant,
        acts_for=grant.traveller_email if grant.subject == OAuthGrant.Subject.TRAVELLER else "",
        audience=grant.resource,
    )
    refresh_plain = REFRESH_PREFIX + secrets.token_urlsafe(32)
    RefreshToken.objects.create(
        grant=grant,
        digest=tokens.digest_of(refresh_plain),
        expires_at=now + timedelta(days=settings.OAUTH_REFRESH_TOKEN_DAYS),
    )
    return IssuedTokens(plain, refresh_plain, settings.OAUTH_ACCESS_TOKEN_SECONDS, sorted(scopes))


def revoke_token(*, client: OAuthClient, token: str) -> None:
    """RFC 7009: an access or refresh token of this client. Either revokes the whole grant: a client that
    revokes means to be cut off (a logout), and a refresh token left alive would mint new access tokens.
    Unknown tokens, and those of other clients, change nothing (the answer does not tell them apart)."""
    digest = tokens.digest_of(token)
    found: RefreshToken | ApiToken | None
    if token.startswith(REFRESH_PREFIX):
        found = (
            RefreshToken.objects.select_related("grant").filter(digest=digest, grant__client=client).first()
        )
    elif token.startswith(tokens.TOKEN_PREFIX):
        found = ApiToken.objects.select_related("grant").filter(digest=digest, grant__client=client).first()
    else:
        found = None
    if found is not None and found.grant is not None:  # the filter asked for a grant
        revoke_grant(found.grant, actor=f"client {client.client_id}")
