"""The discovery documents (RFC 9728, RFC 8414) as MCP clients read them: the path a 401 names, the
well-known fallbacks, Authlib's RFC 8414 validation and the MCP Python SDK's own models and checks."""

import asyncio
import json

import httpx2
import pytest
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    extract_resource_metadata_from_www_auth,
    extract_scope_from_www_auth,
    handle_auth_metadata_response,
    handle_protected_resource_response,
    validate_metadata_issuer,
)

from mcp_endpoint.urls import MCP_PATH
from oauth import discovery

BASE = "https://chauffeur.test"
PRM = "/.well-known/oauth-protected-resource"
MCP_PRM, V1_PRM = f"{PRM}/api/mcp", f"{PRM}/api/v1"
AS_PATHS = ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]


@pytest.fixture(autouse=True)
def public_address(settings):
    settings.PUBLIC_BASE_URL = BASE


def as_sdk_response(response) -> httpx2.Response:
    """A Django test response as the MCP Python SDK's HTTP client would hand it to its auth helpers."""
    headers = {name: value for name, value in response.items()}
    return httpx2.Response(response.status_code, headers=headers, content=response.content)


@pytest.mark.parametrize(("path", "resource"), [(MCP_PRM, "/api/mcp"), (V1_PRM, "/api/v1"), (PRM, "")])
def test_the_protected_resource_metadata_names_the_resource_its_address_was_made_from(client, path, resource):
    """RFC 9728 §3.3: the root document's resource is the origin itself, each path's document its path."""
    response = client.get(path)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response.json() == {
        "resource": BASE + resource,
        "authorization_servers": [BASE],
        "scopes_supported": ["booking.read", "booking.write"],
        "bearer_methods_supported": ["header"],
        "resource_name": discovery.RESOURCE_NAMES[resource],
        "resource_documentation": BASE + ("/api/docs" if resource == "/api/v1" else "/developers"),
    }
    assert response["Cache-Control"] == "public, max-age=300"


@pytest.mark.parametrize("path", AS_PATHS)
def test_the_authorization_server_metadata_is_valid_rfc_8414(client, path):
    response = client.get(path)
    assert response.status_code == 200
    document = response.json()
    AuthorizationServerMetadata(document).validate()  # raises on any RFC 8414 §2 violation
    assert document["issuer"] == BASE
    assert {
        name: document[name]
        for name in (
            "authorization_endpoint",
            "token_endpoint",
            "registration_endpoint",
            "revocation_endpoint",
        )
    } == {
        "authorization_endpoint": f"{BASE}/oauth/authorize",
        "token_endpoint": f"{BASE}/oauth/token",
        "registration_endpoint": f"{BASE}/oauth/register",
        "revocation_endpoint": f"{BASE}/oauth/revoke",
    }
    assert document["response_types_supported"] == ["code"]
    assert document["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert document["code_challenge_methods_supported"] == ["S256"]  # MCP clients refuse without it
    assert document["token_endpoint_auth_methods_supported"] == [
        "none",
        "client_secret_basic",
        "client_secret_post",
    ]
    assert document["client_id_metadata_document_supported"] is True
    assert document["authorization_response_iss_parameter_supported"] is True
    assert document["scopes_supported"] == ["booking.read", "booking.write"]
    assert response["Cache-Control"] == "public, max-age=300"


def test_both_authorization_server_addresses_serve_the_same_document(client):
    first, second = (client.get(path).json() for path in AS_PATHS)
    assert first == second


def test_authlib_refuses_the_document_on_a_plain_http_issuer(client, settings):
    """The validation in the test above can fail: RFC 8414 wants an https issuer."""
    settings.PUBLIC_BASE_URL = "http://rides.example"
    with pytest.raises(ValueError, match="https"):
        AuthorizationServerMetadata(client.get(AS_PATHS[0]).json()).validate()


@pytest.mark.parametrize("path", [MCP_PRM, V1_PRM, PRM, *AS_PATHS])
def test_browsers_may_read_the_documents_from_any_origin(client, path):
    response = client.options(
        path,
        HTTP_ORIGIN="https://inspector.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="mcp-protocol-version",
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "https://inspector.example"
    assert "GET" in response["Access-Control-Allow-Methods"]
    assert "mcp-protocol-version" in response["Access-Control-Allow-Headers"]
    cross_origin = client.get(path, HTTP_ORIGIN="https://inspector.example")
    assert cross_origin.status_code == 200
    assert cross_origin["Access-Control-Allow-Origin"] == "https://inspector.example"


@pytest.mark.parametrize("path", [MCP_PRM, AS_PATHS[0]])
def test_the_documents_are_read_only(client, path):
    response = client.post(path, "{}", content_type="application/json")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, OPTIONS"
    assert response.json()["error"] == "invalid_request"


def test_the_mcp_resource_is_the_agent_endpoint():
    assert discovery.MCP_RESOURCE == MCP_PATH


@pytest.mark.parametrize(("endpoint", "prm"), [("/api/mcp", MCP_PRM), ("/api/v1/checkout", V1_PRM)])
def test_the_mcp_python_sdk_discovers_the_server_from_a_401(client, endpoint, prm):
    """The SDK's own steps: read the 401's challenge, fetch the resource metadata it names, build the
    authorization server's metadata address from it, fetch and check that (issuer, PKCE)."""
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    refused = as_sdk_response(client.post(endpoint, json.dumps(message), content_type="application/json"))
    assert refused.status_code == 401
    named = extract_resource_metadata_from_www_auth(refused)
    assert named == BASE + prm
    assert extract_scope_from_www_auth(refused) == "booking.read booking.write"

    (first, *_) = build_protected_resource_metadata_discovery_urls(named, BASE + endpoint)
    assert first == named
    prm_document = asyncio.run(
        handle_protected_resource_response(as_sdk_response(client.get(first.removeprefix(BASE))))
    )
    assert prm_document is not None and str(prm_document.resource).rstrip("/") == BASE + prm.removeprefix(PRM)
    authorization_server = str(prm_document.authorization_servers[0])

    urls = build_oauth_authorization_server_metadata_discovery_urls(authorization_server, BASE + endpoint)
    assert [url.removeprefix(BASE) for url in urls] == AS_PATHS  # both are served
    found, metadata = asyncio.run(
        handle_auth_metadata_response(as_sdk_response(client.get(urls[0].removeprefix(BASE))))
    )
    assert found and metadata is not None
    validate_metadata_issuer(metadata, authorization_server)
    assert metadata.code_challenge_methods_supported == ["S256"]
    assert str(metadata.registration_endpoint) == f"{BASE}/oauth/register"


def test_a_client_that_finds_no_resource_metadata_in_the_401_reads_the_endpoints_own_document_first(client):
    """MCP 2025-11-25 (Protected Resource Metadata Discovery Requirements), as the Python SDK builds it: the
    path's document, then the root's; the first answers for the agent endpoint."""
    urls = build_protected_resource_metadata_discovery_urls(None, BASE + "/api/mcp")
    assert [url.removeprefix(BASE) for url in urls] == [MCP_PRM, PRM]
    found = asyncio.run(handle_protected_resource_response(as_sdk_response(client.get(MCP_PRM))))
    assert found is not None and str(found.resource).rstrip("/") == BASE + "/api/mcp"


@pytest.mark.parametrize("path", [MCP_PRM, AS_PATHS[0]])
def test_head_answers_like_get_without_a_body(client, path):
    response = client.head(path)
    assert response.status_code == 200 and response.content == b""
    assert response["Cache-Control"] == "public, max-age=300"
