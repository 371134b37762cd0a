"""Validating an authorization request (RFC 6749 §4.1.1, RFC 7636, RFC 8707) into the pending request the
consent page shows.

A thin adapter over Authlib rather than its AuthorizationServer/AuthorizationCodeGrant: those expect
to persist the code and token through their own hooks and have no place for the resource indicator
(RFC 8707), our loopback rule or the session hand-over to the sign-in and consent pages, so every rule
would end up in a callback anyway. Authlib still provides the error responses, PKCE's S256 comparison
and its syntax rules (rfc7636), and the URI helpers."""

from authlib.oauth2.rfc7636.challenge import CODE_CHALLENGE_PATTERN
from django.http import QueryDict
from django.utils.translation import gettext as _

from oauth import resources
from oauth.clients import client_of, redirect_uri_allowed, same_redirect_uri
from oauth.errors import (
    InvalidRequestError,
    InvalidScopeError,
    InvalidTargetError,
    OAuth2Error,
    UnverifiedRedirect,
)
from oauth.models import OAuthClient
from oauth.pending import PendingAuthorization

SINGLE = (
    "client_id",
    "redirect_uri",
    "response_type",
    "state",
    "scope",
    "code_challenge",
    "code_challenge_method",
    "resource",
)
MAX_STATE = 2000


def validate_authorization_request(params: QueryDict) -> tuple[OAuthClient, PendingAuthorization]:
    """The client and the request to ask consent for. UnverifiedRedirect when the client or its redirect
    URI is unknown; an OAuth2Error carrying the redirect URI and state for anything else."""
    client_id, redirect_uri = params.get("client_id", ""), params.get("redirect_uri", "")
    if len(params.getlist("client_id")) > 1 or len(params.getlist("redirect_uri")) > 1:
        raise UnverifiedRedirect(_("The request names more than one client or redirect address."))
    client = client_of(client_id)
    if client is None:
        raise UnverifiedRedirect(_("The application that sent you here is not known to us."))
    if not redirect_uri:
        raise UnverifiedRedirect(_("The request does not say where to send you back."))
    if not redirect_uri_allowed(client, redirect_uri):
        raise UnverifiedRedirect(_("The address to send you back to is not registered for this application."))
    redirect_uri = same_redirect_uri(redirect_uri) or redirect_uri  # where the browser goes, as it is shown
    state = params.get("state", "")
    try:
        pending = _pending(params, client, redirect_uri, state)
    except OAuth2Error as refusal:
        refusal.redirect_uri, refusal.state = redirect_uri, state[:MAX_STATE]
        raise
    return client, pending


def _pending(params: QueryDict, client: OAuthClient, redirect_uri: str, state: str) -> PendingAuthorization:
    repeated = [name for name in SINGLE if len(params.getlist(name)) > 1]
    if repeated:
        raise InvalidRequestError(f"Each parameter at most once: {', '.join(repeated)} repeated.")
    if len(state) > MAX_STATE:
        raise InvalidRequestError("state is too long.")
    response_type = params.get("response_type", "")
    if response_type != "code":
        raise OAuth2Error("Only response_type=code is supported.", error="unsupported_response_type")
    challenge, method = params.get("code_challenge", ""), params.get("code_challenge_method", "")
    if not challenge:
        raise InvalidRequestError("PKCE is required: send code_challenge with code_challenge_method=S256.")
    if method != "S256":
        raise InvalidRequestError("code_challenge_method must be S256 (plain is not accepted).")
    if len(challenge) != 43 or not CODE_CHALLENGE_PATTERN.match(challenge):  # base64url of a SHA-256
        raise InvalidRequestError("code_challenge is not a base64url-encoded SHA-256 digest.")
    return PendingAuthorization(
        client_id=client.client_id,
        redirect_uri=redirect_uri,
        scopes=requested_scopes(params.get("scope")),
        state=state,
        code_challenge=challenge,
        resource=requested_resource(params.get("resource")),
    )


def requested_scopes(scope: str | None, allowed: tuple[str, ...] | list[str] = resources.SCOPES) -> list[str]:
    """The scopes asked for, sorted; none named means every scope the server has (the consent page
    shows them, and the person may deny)."""
    names = (scope or "").split()
    if not names:
        return sorted(allowed)
    unknown = sorted(set(names) - set(allowed))
    if unknown:
        raise InvalidScopeError(f"Unknown scope requested; the scopes are {' '.join(allowed)}.")
    return sorted(set(names))


def requested_resource(resource: str | None) -> str:
    """RFC 8707: one of our two APIs; none named means the agent endpoint."""
    if not resource:
        return resources.mcp_resource()
    if resource not in resources.resources():
        raise InvalidTargetError(f"resource must be one of {', '.join(resources.resources())}.")
    return resource
