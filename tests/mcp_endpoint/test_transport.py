"""The agent endpoint /api/mcp over HTTP (docs/decisions.md §10): which methods it answers, the headers it
checks (Origin, Host, Content-Type, Accept), how large a message may be, the 202 for messages that
need no answer, and every refusal in JSON-RPC at its own status code."""

import json

import pytest

from tests.mcp_endpoint.mcp import MCP, call, error_of, post, result_of, rpc

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]  # our own Origin: PUBLIC_BASE_URL


# --- HTTP methods ---------------------------------------------------------------------------------


ALLOW = "GET, POST, HEAD, OPTIONS"


def test_get_for_an_event_stream_is_405_with_allow(client, agent):
    response = client.get(MCP, HTTP_ACCEPT="text/event-stream", **agent)
    error_of(response, 405, -32600)
    assert response["Allow"] == ALLOW


DEAD_TOKEN = {"HTTP_AUTHORIZATION": "Bearer cbt_not_a_token_we_issued"}


@pytest.mark.parametrize("method", ["GET", "HEAD", "DELETE", "PUT", "PATCH"])
@pytest.mark.parametrize("accept", ["text/event-stream", "application/json"])
def test_a_dead_token_is_401_before_the_method_is_refused(client, method, accept):
    """mcp-remote and mcp-use try GET for an event stream first: a 405 there hid the bad token."""
    response = client.generic(method, MCP, HTTP_ACCEPT=accept, **DEAD_TOKEN)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        'Bearer realm="chauffeur", error="invalid_token", '
        'resource_metadata="https://chauffeur.test/.well-known/oauth-protected-resource/api/mcp", scope="booking.read booking.write"'
    )
    if method != "HEAD":
        assert error_of(response, 401, -32010)["code"] == "unauthorized"


@pytest.mark.parametrize("method", ["DELETE", "PUT", "PATCH", "TRACE"])
def test_a_request_without_a_token_gets_the_methods_own_answer(client, method):
    error_of(client.generic(method, MCP), 405, -32600)  # nothing presented, nothing to judge
    error_of(client.get(MCP, HTTP_ACCEPT="text/event-stream"), 405, -32600)
    assert client.get(MCP).status_code == 200  # the tool list stays public (docs/agents/index.md)
    assert client.options(MCP).status_code == 200  # a CORS preflight carries no token


@pytest.mark.parametrize("method", ["DELETE", "PUT", "PATCH"])
def test_other_methods_are_405_in_json_rpc(client, agent, method):
    response = client.generic(method, MCP, **agent)
    error_of(response, 405, -32600)
    assert response["Allow"] == ALLOW


def test_options_lists_what_405_lists_and_has_no_body(client):
    response = client.options(MCP)
    assert (response.status_code, response.content, response["Allow"]) == (200, b"", ALLOW)
    assert "Content-Type" not in response


# --- headers and sizes ----------------------------------------------------------------------------


def test_a_foreign_origin_is_403_and_our_own_is_accepted(client, agent):
    # Refused before the body is read (Transports › Security Warning), so the error names no id.
    response = rpc(client, agent, "ping", request_id=4, HTTP_ORIGIN="https://evil.example")
    assert error_of(response, 403, -32012)["code"] == "forbidden_origin"
    assert result_of(rpc(client, agent, "ping", HTTP_ORIGIN="http://testserver")) == {}
    assert result_of(rpc(client, agent, "ping", HTTP_ORIGIN="https://chauffeur.test")) == {}


@pytest.mark.parametrize("method", ["GET", "HEAD", "OPTIONS", "DELETE", "PUT"])
def test_a_foreign_origin_is_403_on_every_method(client, method):
    response = client.generic(method, MCP, HTTP_ORIGIN="http://evil.example")
    assert response.status_code == 403
    if method != "HEAD":
        assert error_of(response, 403, -32012)["code"] == "forbidden_origin"


def test_a_long_origin_is_not_echoed_in_full(client):
    response = client.get(MCP, HTTP_ORIGIN="http://" + "e" * 100_000)
    assert response.status_code == 403 and len(response.content) < 1000


def test_a_body_that_is_not_json_content_is_415(client, agent):
    message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    response = client.post(MCP, message, content_type="text/plain", **agent)
    error_of(response, 415, -32600, request_id=1)


def test_an_accept_header_without_json_is_406(client, agent):
    error_of(rpc(client, agent, "ping", HTTP_ACCEPT="text/event-stream"), 406, -32600, request_id=1)
    streamable = rpc(client, agent, "ping", HTTP_ACCEPT="application/json, text/event-stream")
    assert result_of(streamable) == {}


def test_an_oversized_message_is_413(client, agent, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = call(client, agent, "places.autocomplete", {"input": "x" * 2000})
    error_of(response, 413, -32600)


def test_a_refused_host_is_answered_in_json_rpc(client, agent):
    response = rpc(client, agent, "ping", HTTP_HOST="evil.example")
    error_of(response, 400, -32600)


# --- messages that need no answer: 202 ------------------------------------------------------------


@pytest.mark.parametrize("method", ["notifications/initialized", "notifications/cancelled", "anything/else"])
def test_notifications_are_accepted_with_202_and_no_body(client, agent, method):
    response = post(client, {"jsonrpc": "2.0", "method": method, "params": {"requestId": 1}}, **agent)
    assert (response.status_code, response.content) == (202, b"")
    assert "Content-Type" not in response


def test_a_response_from_the_client_is_accepted_with_202(client, agent):
    response = post(client, {"jsonrpc": "2.0", "id": 9, "result": {}}, **agent)
    assert (response.status_code, response.content) == (202, b"")
