"""The discovery documents and the registration endpoint (oauth/discovery_views.py), wired into
config/urls.py. The root protected resource document is the agent endpoint's: MCP clients that find no
`resource_metadata` in a 401 try it after the path-specific one (MCP 2025-11-25, Authorization ›
Protected Resource Metadata Discovery Requirements); OpenID Connect discovery's address serves the same
authorization server metadata, as MCP clients try it second."""

from django.urls import path

from access import protected_resources
from oauth import discovery, discovery_views

urlpatterns = [
    *[
        path(
            (protected_resources.PROTECTED_RESOURCE_PREFIX + resource).lstrip("/"),
            discovery_views.protected_resource,
            {"resource": resource},
            name=f"oauth-protected-resource-{resource.rsplit('/', 1)[-1]}",
        )
        for resource in protected_resources.RESOURCES
    ],
    path(
        protected_resources.PROTECTED_RESOURCE_PREFIX.lstrip("/"),
        discovery_views.protected_resource,
        {"resource": protected_resources.MCP_RESOURCE},
        name="oauth-protected-resource",
    ),
    path(
        discovery.AUTHORIZATION_SERVER_PATH.lstrip("/"),
        discovery_views.authorization_server,
        name="oauth-authorization-server",
    ),
    path(
        discovery.OPENID_CONFIGURATION_PATH.lstrip("/"),
        discovery_views.authorization_server,
        name="openid-configuration",
    ),
    path(discovery.REGISTER_PATH.lstrip("/"), discovery_views.register, name="oauth-register"),
]
