"""The protected resources (RFC 8707) a token may be bound to, as full URLs under PUBLIC_BASE_URL (their
names and documents: access/oauth/discovery.py)."""

from access.oauth.discovery import MCP_RESOURCE, SCOPES, V1_RESOURCE, issuer, resource_url
from chauffeur.api.problems import is_v1_path

__all__ = ["SCOPES", "issuer", "mcp_resource", "resource_of_path", "resources"]


def mcp_resource() -> str:
    return resource_url(MCP_RESOURCE)


def resources() -> tuple[str, str]:
    return mcp_resource(), resource_url(V1_RESOURCE)


def resource_of_path(path: str) -> str | None:
    """The resource a request path belongs to; None for every other path (the legacy endpoints)."""
    if path == MCP_RESOURCE:
        return mcp_resource()
    if is_v1_path(path):
        return resource_url(V1_RESOURCE)
    return None
