"""Who is calling (docs/decisions.md §6): one `authenticate()` and one `require_scope()` for every door —
the REST API (through the DRF classes below), the agent endpoint and the rate limiter — with the 401/403
answers' WWW-Authenticate challenges carried by the exceptions themselves."""

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission

from access import protected_resources, tokens
from access.models import ApiToken
from apikit import page_sessions
from apikit.clients import client_address
from apikit.problems import is_api_path
from apikit.ratelimit import Quota

REALM = 'Bearer realm="chauffeur"'
_UNRESOLVED, _FROM_DATABASE = object(), object()  # what a request's token was looked up under
# POST paths whose door counts its requests itself, not the rate limiter: oauth/apps.py adds dynamic client
# registration (oauth/registration_limits.py counts its successes and failures apart).
COUNTED_BY_THEIR_DOOR: set[str] = set()


def _challenge_parameters(resource: str, scopes) -> str:
    """What every 401 challenge names after its realm (MCP 2025-11-25 and 2026-07-28, Authorization): where
    the protected resource's metadata lives (RFC 9728 §5.1) and the scopes to ask for (RFC 6750 §3)."""
    return f"{_resource_metadata(resource)}, {_scope(scopes)}"


def _resource_metadata(resource: str) -> str:
    return f'resource_metadata="{protected_resources.resource_metadata_url(resource)}"'


def _scope(scopes) -> str:
    return f'scope="{" ".join(protected_resources.ordered_scopes(scopes))}"'


class TokenRequired(exceptions.NotAuthenticated):
    """401 without a token: the challenge asks for every scope, as a new client needs them all."""

    default_detail = "This operation needs a bearer token (Authorization: Bearer cbt_…)."

    def __init__(self, detail=None, *, resource: str = protected_resources.V1_RESOURCE):
        super().__init__(detail)
        self.challenge = f"{REALM}, {_challenge_parameters(resource, protected_resources.SCOPES)}"


class InvalidToken(exceptions.AuthenticationFailed):
    default_detail = "The bearer token is unknown, expired or revoked."

    def __init__(self, detail=None, *, resource: str = protected_resources.V1_RESOURCE):
        super().__init__(detail)
        self.challenge = (
            f'{REALM}, error="invalid_token", {_challenge_parameters(resource, protected_resources.SCOPES)}'
        )


class InsufficientScope(exceptions.PermissionDenied):
    """403: the challenge's scope is the one needed plus those the token holds (MCP 2025-11-25, Scope
    Challenge Handling, the recommended approach), so a client that asks again with exactly the
    challenged scopes (step-up) loses none it had; 2026-07-28 clients add the scopes they had themselves."""

    def __init__(self, scope: str, *, granted=(), resource: str = protected_resources.V1_RESOURCE):
        self.scope = scope
        # error first, as RFC 6750 §3 and MCP's example write it
        needed = _scope([*granted, scope])
        self.challenge = f'Bearer error="insufficient_scope", {needed}, {_resource_metadata(resource)}'
        super().__init__(f"This operation needs a token with the {scope} scope.")


def presented_token(request: HttpRequest) -> str | None:
    """The text after `Bearer ` in the Authorization header. None without one: a request using another
    scheme (e.g. Basic) presents no bearer token (RFC 6750 §3.1), so it is "no token", not a bad one."""
    scheme, _, value = request.META.get("HTTP_AUTHORIZATION", "").strip().partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def authenticate(request: HttpRequest) -> ApiToken | None:
    """The live token this request presents; None when it presents none. Raises InvalidToken for an
    unknown, expired or revoked one. Looked up once per request, however many doors ask, and again if the
    shared token version moved meanwhile (the rate limiter identifies a caller before its round trip
    brings the versions along)."""
    version: object
    try:
        version = tokens.TOKENS.current()
    except Exception:  # the shared cache is down: tokens.authenticate reads the database
        version = _FROM_DATABASE
    seen_under, found = getattr(request, "_api_token", (_UNRESOLVED, None))
    if seen_under is _UNRESOLVED or (seen_under is not _FROM_DATABASE and seen_under != version):
        text = presented_token(request)
        resource = protected_resources.resource_of_path(request.path_info)
        challenged = (
            resource or protected_resources.V1_RESOURCE
        )  # the legacy endpoints challenge as the REST API
        found = None if text is None else tokens.authenticate(text) or InvalidToken(resource=challenged)
        if isinstance(found, ApiToken) and not _for_this_resource(found, resource):
            found = InvalidToken(resource=challenged)
        if isinstance(found, ApiToken):
            tokens.record_use(found)
        request._api_token = (version, found)  # type: ignore[attr-defined]  # a per-request memo, read with getattr
    if isinstance(found, InvalidToken):
        raise found
    return found


def _for_this_resource(token: ApiToken, resource: str | None) -> bool:
    """An OAuth token bound to a resource (RFC 8707) works there only: one issued for /api/mcp is no key
    to /api/v1 or the legacy endpoints (resource None), and the reverse (no token passthrough)."""
    return not token.audience or (
        resource is not None and token.audience == protected_resources.resource_url(resource)
    )


def require_scope(
    token: ApiToken | None, scope: str, *, resource: str = protected_resources.V1_RESOURCE
) -> ApiToken:
    """The token, if it may do what `scope` allows; TokenRequired or InsufficientScope otherwise, their
    challenges naming `resource`'s metadata (the REST API's unless the agent endpoint asks)."""
    if token is None:
        raise TokenRequired(resource=resource)
    if scope not in token.scopes:
        raise InsufficientScope(scope, granted=token.scopes, resource=resource)
    return token


def caller_key(request: HttpRequest) -> str:
    """Who a request counts as: its valid token (an OAuth token: its grant, so refreshing does not start a
    new budget), else its address (the rate limit, scoped idempotency)."""
    return _key_of(_valid_token(request), request)


def _key_of(token: ApiToken | None, request: HttpRequest) -> str:
    if token is None:
        return f"ip:{client_address(request)}"
    return f"grant:{token.grant_id}" if token.grant_id else f"token:{token.pk}"


def rate_limit_client(request: HttpRequest) -> list[Quota]:
    """The rate limiter's budgets for this request (settings.API_RATE_LIMIT_CLIENT): a valid token counts
    alone, with its own limit if staff set one; a valid page session counts alone and with the other page
    sessions of its address; anything else counts by address. A bad, expired or revoked token on an API
    path raises InvalidToken: the limiter answers 401 with its challenge before any work, never the 429 of
    the address's budget, so a client behind a busy shared address learns to refresh. A POST to a path in
    COUNTED_BY_THEIR_DOOR (dynamic client registration) is counted by its own door; a preflight counts as
    usual."""
    if request.method == "POST" and request.path_info in COUNTED_BY_THEIR_DOOR:
        return []
    try:
        token = authenticate(request) if is_api_path(request.path_info) else _valid_token(request)
        key = _key_of(token, request)
    except DatabaseError:  # the token cannot be checked now: count by address; a door that needs the
        # token asks again and answers the outage in its own format
        token, key = None, f"ip:{client_address(request)}"
    if token is None and (session := page_sessions.presented(request)):
        return [
            Quota(
                f"page:{session}",
                settings.PAGE_SESSION_RATE_LIMIT,
                settings.PAGE_RATE_LIMIT_WINDOW_SECONDS,
                "page",
            ),
            Quota(
                f"page-ip:{client_address(request)}",
                settings.PAGE_ADDRESS_RATE_LIMIT,
                settings.PAGE_RATE_LIMIT_WINDOW_SECONDS,
                "page-address",
            ),
        ]
    limit = token.rate_limit if token and token.rate_limit else None
    return [Quota(key, limit or settings.API_RATE_LIMIT_REQUESTS, settings.API_RATE_LIMIT_WINDOW_SECONDS)]


def _valid_token(request: HttpRequest) -> ApiToken | None:
    try:
        return authenticate(request)
    except InvalidToken:
        return None


class BearerTokenAuthentication(BaseAuthentication):
    def authenticate(self, request):
        token = authenticate(request._request)
        return None if token is None else (None, token)

    def authenticate_header(self, request) -> str:
        return TokenRequired().challenge


class RequiresScope(BasePermission):
    scope = ""

    def has_permission(self, request, view) -> bool:
        require_scope(request.auth if isinstance(request.auth, ApiToken) else None, self.scope)
        return True


def requires_scope(scope: str) -> type[RequiresScope]:
    return type(f"Requires{scope.title().replace('.', '')}", (RequiresScope,), {"scope": scope})


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "access.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A token issued by the operator (`cbt_…`), with the scopes the operation lists.",
        }

    def get_security_requirement(self, auto_schema):
        scopes = [
            permission.scope
            for permission in auto_schema.view.get_permissions()
            if isinstance(permission, RequiresScope)
        ]
        return {self.name: scopes}
