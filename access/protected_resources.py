"""The protected resources a bearer token opens (RFC 9728, RFC 8707): which API a request path belongs to,
its identifier under PUBLIC_BASE_URL, where its metadata lives, and the scopes in their fixed order. What
authenticate() and its challenges name; the authorization server (oauth/) publishes the same."""

from django.conf import settings

from access.models import Scope
from apikit.problems import is_v1_path

MCP_RESOURCE = "/api/mcp"  # mcp_endpoint.urls.MCP_PATH (access imports no door)
V1_RESOURCE = "/api/v1"
RESOURCES = (MCP_RESOURCE, V1_RESOURCE)
PROTECTED_RESOURCE_PREFIX = "/.well-known/oauth-protected-resource"
SCOPES = tuple(Scope.values)  # booking.read, booking.write


def issuer() -> str:
    return settings.PUBLIC_BASE_URL


def resource_url(resource: str) -> str:
    """The resource identifier (RFC 8707, RFC 9728 `resource`): the canonical URL, no trailing slash."""
    return issuer() + resource


def resource_metadata_url(resource: str) -> str:
    """Where the resource's metadata lives (RFC 9728 §3.1: the well-known prefix inserted before the path)."""
    return issuer() + PROTECTED_RESOURCE_PREFIX + resource


def resource_of_path(path: str) -> str | None:
    """The protected resource a request path belongs to (MCP_RESOURCE, V1_RESOURCE); None for every other
    path (the legacy /api/ endpoints, which no resource-bound token opens)."""
    if path == MCP_RESOURCE:
        return MCP_RESOURCE
    if is_v1_path(path):
        return V1_RESOURCE
    return None


def ordered_scopes(scopes) -> list[str]:
    """Known scopes in their fixed order (read, write); unknown ones are left out."""
    chosen = set(scopes)
    return [scope for scope in SCOPES if scope in chosen]
