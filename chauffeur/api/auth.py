"""Bearer tokens on the API (DECISIONS §6): one authentication class and one scope permission for every
protected operation, the 401/403 answers with their WWW-Authenticate headers, and the OpenAPI scheme."""

from django.http import HttpRequest
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission

from agents import tokens
from agents.models import ApiToken

REALM = 'Bearer realm="chauffeur"'
_UNRESOLVED = object()


class InvalidToken(exceptions.AuthenticationFailed):
    default_detail = "The bearer token is unknown, expired or revoked."


class InsufficientScope(exceptions.PermissionDenied):
    def __init__(self, scope: str):
        self.scope = scope
        super().__init__(f"This operation needs a token with the {scope} scope.")


def presented_token(request: HttpRequest) -> str | None:
    """The text after `Bearer ` in the Authorization header; None without a bearer header."""
    scheme, _, value = request.META.get("HTTP_AUTHORIZATION", "").strip().partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def bearer_token(request: HttpRequest) -> ApiToken | None:
    """The live token of this request, looked up once per request (the rate limiter asks first)."""
    cached = getattr(request, "_bearer_token", _UNRESOLVED)
    if cached is _UNRESOLVED:
        text = presented_token(request)
        cached = tokens.authenticate(text) if text else None
        request._bearer_token = cached
    return cached


class BearerTokenAuthentication(BaseAuthentication):
    def authenticate(self, request):
        if not request.META.get("HTTP_AUTHORIZATION"):
            return None  # the permission answers "token required"
        token = bearer_token(request._request)
        if token is None:
            raise InvalidToken()
        tokens.record_use(token)
        return None, token

    def authenticate_header(self, request) -> str:
        return REALM


class RequiresScope(BasePermission):
    scope = ""

    def has_permission(self, request, view) -> bool:
        if not isinstance(request.auth, ApiToken):
            raise exceptions.NotAuthenticated(
                "This operation needs a bearer token (Authorization: Bearer …)."
            )
        if self.scope not in request.auth.scopes:
            raise InsufficientScope(self.scope)
        return True


def requires_scope(scope: str) -> type[RequiresScope]:
    return type(f"Requires{scope.title().replace('.', '')}", (RequiresScope,), {"scope": scope})


def challenge(exc: Exception) -> str | None:
    """The WWW-Authenticate value for an authentication or scope failure."""
    if isinstance(exc, InsufficientScope):
        return f'Bearer error="insufficient_scope", scope="{exc.scope}"'
    if isinstance(exc, exceptions.AuthenticationFailed):
        return f'{REALM}, error="invalid_token"'
    if isinstance(exc, exceptions.NotAuthenticated):
        return REALM
    return None


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "chauffeur.api.auth.BearerTokenAuthentication"
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
