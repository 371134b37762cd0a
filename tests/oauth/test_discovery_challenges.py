"""The 401/403 challenges name the surface's protected resource metadata and the scopes to ask for; the
403's scope is the scope needed plus those the token holds, and nothing else."""

import json

import pytest
from django.utils import timezone

from tests.conftest import bearer

pytestmark = pytest.mark.django_db

BASE = "https://chauffeur.test"
V1_METADATA = f'resource_metadata="{BASE}/.well-known/oauth-protected-resource/api/v1"'
MCP_METADATA = f'resource_metadata="{BASE}/.well-known/oauth-protected-resource/api/mcp"'
TOOLS_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "booking.create_checkout", "arguments": {}},
}


@pytest.fixture(autouse=True)
def public_address(settings):
    settings.PUBLIC_BASE_URL = BASE


def test_a_token_holding_no_scope_is_challenged_for_the_needed_one_only(client):
    """Without anything granted, the 403 names exactly the operation's scope (not both scopes)."""
    headers = bearer("booking.read", scopes=[])
    response = client.post("/api/v1/checkout", "{}", content_type="application/json", **headers)
    assert response.status_code == 403
    assert (
        response["WWW-Authenticate"]
        == f'Bearer error="insufficient_scope", scope="booking.write", {V1_METADATA}'
    )
    mcp = client.post(
        "/api/mcp",
        json.dumps(TOOLS_CALL),
        content_type="application/json",
        HTTP_ACCEPT="application/json",
        **headers,
    )
    assert mcp.status_code == 403
    assert (
        mcp["WWW-Authenticate"] == f'Bearer error="insufficient_scope", scope="booking.write", {MCP_METADATA}'
    )
    assert mcp.json()["error"]["data"]["requiredScope"] == "booking.write"  # the JSON-RPC body as before


@pytest.mark.parametrize(
    ("path", "metadata"),
    [
        ("/api/mcp", MCP_METADATA),
        ("/api/v1/checkout", V1_METADATA),
        ("/api/v1/bookings/CB-XXXXXX/cancel", V1_METADATA),
    ],
)
def test_a_revoked_token_is_told_where_to_get_a_new_one(client, path, metadata):
    headers = bearer("booking.read", "booking.write", revoked_at=timezone.now())
    response = client.post(path, json.dumps(TOOLS_CALL), content_type="application/json", **headers)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        f'Bearer realm="chauffeur", error="invalid_token", {metadata}, scope="booking.read booking.write"'
    )
