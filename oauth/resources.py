"""The protected resources (RFC 8707) a token may be bound to, as full URLs under PUBLIC_BASE_URL (their
names and documents: oauth/discovery.py; what they are: access/protected_resources.py)."""

from access.protected_resources import MCP_RESOURCE, SCOPES, V1_RESOURCE, issuer, resource_url

__all__ = ["SCOPES", "issuer", "mcp_resource", "resources"]


def mcp_resource() -> str:
    return resource_url(MCP_RESOURCE)


def resources() -> tuple[str, str]:
    return mcp_resource(), resource_url(V1_RESOURCE)
