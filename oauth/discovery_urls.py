"""The discovery documents and the registration endpoint (oauth/discovery_views.py), wired into
config/urls.py. The root protected resource document names the origin as its resource, as RFC 9728 §3.3
requires of the document at that address; the agent endpoint's and the REST API's live at their paths.
OpenID Connect discovery's address serves the same authorization server metadata, as MCP clients try it
second."""

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
        {"resource": discovery.ROOT_RESOURCE},
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
