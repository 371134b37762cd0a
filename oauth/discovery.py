"""What a client reads before it asks (docs/agents/oauth.md, "Discovery and registration"): the protected
resource metadata of /api/mcp and /api/v1 (RFC 9728), the authorization server's metadata (RFC 8414), and
the URLs both name. The issuer is PUBLIC_BASE_URL; the endpoints below are served by this service. The
resources themselves, their URLs and scopes are access/protected_resources.py's (authenticate() names
them too)."""

from django.conf import settings

from access.protected_resources import MCP_RESOURCE, SCOPES, V1_RESOURCE, issuer, resource_url

# The origin itself, whose document lives at the root well-known address (RFC 9728 §3.1, §3.3: a
# document names the resource whose identifier its address was made from). Clients that find no
# `resource_metadata` in a 401 read the path's document first (MCP 2025-11-25, Authorization ›
# Protected Resource Metadata Discovery Requirements).
ROOT_RESOURCE = ""
RESOURCE_NAMES = {
    ROOT_RESOURCE: "Vienna chauffeur booking",
    MCP_RESOURCE: "Vienna chauffeur booking: agent endpoint (MCP)",
    V1_RESOURCE: "Vienna chauffeur booking: REST API v1",
}
RESOURCE_DOCUMENTATION = {ROOT_RESOURCE: "/developers", MCP_RESOURCE: "/developers", V1_RESOURCE: "/api/docs"}
AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server"
OPENID_CONFIGURATION_PATH = "/.well-known/openid-configuration"
AUTHORIZE_PATH = "/oauth/authorize"
TOKEN_PATH = "/oauth/token"  # noqa: S105  (a path, not a secret)
REVOKE_PATH = "/oauth/revoke"
REGISTER_PATH = "/oauth/register"
TOKEN_ENDPOINT_AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")
GRANT_TYPES = ("authorization_code", "refresh_token")
RESPONSE_TYPES = ("code",)


def protected_resource_metadata(resource: str) -> dict[str, object]:
    """RFC 9728 §2 for one resource; `authorization_servers` names this service (MCP: at least one)."""
    return {
        "resource": resource_url(resource),
        "authorization_servers": [issuer()],
        "scopes_supported": list(SCOPES),
        "bearer_methods_supported": ["header"],
        "resource_name": RESOURCE_NAMES[resource],
        "resource_documentation": issuer() + RESOURCE_DOCUMENTATION[resource],
    }


def authorization_server_metadata() -> dict[str, object]:
    """RFC 8414 §2, with RFC 9207's `iss` flag and the client ID metadata document flag MCP reads."""
    base = issuer()
    return {
        "issuer": base,
        "authorization_endpoint": base + AUTHORIZE_PATH,
        "token_endpoint": base + TOKEN_PATH,
        "registration_endpoint": base + REGISTER_PATH,
        "revocation_endpoint": base + REVOKE_PATH,
        "scopes_supported": list(SCOPES),
        "response_types_supported": list(RESPONSE_TYPES),
        "response_modes_supported": ["query"],
        "grant_types_supported": list(GRANT_TYPES),
        "token_endpoint_auth_methods_supported": list(TOKEN_ENDPOINT_AUTH_METHODS),
        "revocation_endpoint_auth_methods_supported": list(TOKEN_ENDPOINT_AUTH_METHODS),
        "code_challenge_methods_supported": ["S256"],
        "client_id_metadata_document_supported": True,
        "authorization_response_iss_parameter_supported": True,
        "service_documentation": base + "/developers",
        "ui_locales_supported": [code for code, _ in settings.LANGUAGES],
    }
