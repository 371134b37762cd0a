"""The protected resources (RFC 8707) a token may be bound to, named by URL under PUBLIC_BASE_URL."""

from django.conf import settings

from chauffeur.api.problems import is_v1_path

MCP_PATH, V1_PATH = "/api/mcp", "/api/v1"
SCOPES = ("booking.read", "booking.write")


def issuer() -> str:
    return settings.PUBLIC_BASE_URL


def mcp_resource() -> str:
    return settings.PUBLIC_BASE_URL + MCP_PATH


def resources() -> tuple[str, str]:
    return mcp_resource(), settings.PUBLIC_BASE_URL + V1_PATH


def resource_of_path(path: str) -> str | None:
    """The resource a request path belongs to; None for every other path (the legacy endpoints)."""
    if path == MCP_PATH:
        return mcp_resource()
    if is_v1_path(path):
        return settings.PUBLIC_BASE_URL + V1_PATH
    return None
