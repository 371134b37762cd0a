"""The MCP protocol on /api/mcp (docs/decisions.md §10): the metadata document, protocol version
negotiation, initialize, ping and tools/list, the underscore tool names, and every JSON-RPC error
code."""

import pytest
from jsonschema import Draft202012Validator

from tests.agents.mcp import MCP, READ_TOOLS, TOOL_NAMES, call, error_of, post, result_of, rpc

pytestmark = pytest.mark.django_db


# --- GET: the metadata document -------------------------------------------------------------------


def test_get_answers_the_metadata_document_without_a_token(client):
    response = client.get(MCP)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "RateLimit" in response
    document = response.json()
    assert "JSON-RPC 2.0" in document["protocol"] and "MCP" in document["protocol"]
    assert (document["server"], document["version"]) == ("chauffeur-booking", "0.2.0")
    assert document["protocolVersions"][0] == "2025-11-25"
    assert [tool["name"] for tool in document["tools"]] == TOOL_NAMES
    scopes = {tool["name"]: tool["requiredScope"] for tool in document["tools"]}
    assert scopes == {**dict.fromkeys(READ_TOOLS, "booking.read"), "booking.create_checkout": "booking.write"}
    for tool in document["tools"]:
        assert tool["description"] and tool["inputSchema"]["type"] == "object"


def test_get_lists_underscore_names_on_request(client):
    names = [tool["name"] for tool in client.get(MCP, {"toolNames": "underscore"}).json()["tools"]]
    assert names == [name.replace(".", "_") for name in TOOL_NAMES]


def test_an_unknown_tool_name_style_is_refused(client, agent):
    error_of(client.get(MCP, {"toolNames": "camel"}), 400, -32600)
    error_of(rpc(client, agent, "tools/list", path=f"{MCP}?toolNames=camel"), 400, -32600, request_id=1)
    dotted = client.get(MCP, {"toolNames": "dotted"}).json()["tools"]
    assert [tool["name"] for tool in dotted] == TOOL_NAMES


# --- protocol versions ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26"])
def test_a_supported_protocol_version_header_is_accepted(client, agent, version):
    assert result_of(rpc(client, agent, "ping", HTTP_MCP_PROTOCOL_VERSION=version)) == {}


@pytest.mark.parametrize("version", ["2026-07-28", "2024-11-05", "latest"])
def test_an_unsupported_protocol_version_header_is_400(client, agent, version):
    response = rpc(client, agent, "ping", request_id=5, HTTP_MCP_PROTOCOL_VERSION=version)
    data = error_of(response, 400, -32600, request_id=5)
    assert data == {"supported": ["2025-11-25", "2025-06-18", "2025-03-26"], "requested": version}


def test_the_modern_discover_probe_gets_a_legacy_answer(client, agent):
    """The official client's default mode probes server/discover at 2026-07-28; a 400 without a modern
    error code (-32022) tells it to fall back to initialize (MCP 2026-07-28, versioning)."""
    probe = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    response = rpc(client, agent, "server/discover", probe, HTTP_MCP_PROTOCOL_VERSION="2026-07-28")
    assert response.status_code == 400 and response.json()["error"]["code"] != -32022
    error_of(rpc(client, agent, "server/discover", probe), 400, -32601, request_id=1)


# --- JSON-RPC errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "{not json",
        '{"jsonrpc": "2.0", "id": 1, "method": NaN}',
        "\xff",
        "  ",
        # Infinity once read: neither our JSON output nor PostgreSQL's jsonb can hold it.
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "booking.create_checkout", '
        '"arguments": {"amount": 7400, "bookingData": {"from": "Hotel Sacher", "notes": 1e400}}}}',
    ],
)
def test_a_parse_error_is_400_32700(client, agent, body):
    error_of(post(client, body, **agent), 400, -32700)


def test_a_batch_is_refused(client, agent):
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "ping"}]
    response = post(client, batch, **agent)
    assert "Batches are not supported" in response.json()["error"]["message"]
    error_of(response, 400, -32600)


@pytest.mark.parametrize(
    ("message", "echoed_id"),
    [
        ({"id": 1, "method": "ping"}, 1),  # no "jsonrpc"
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, 1),
        ({"jsonrpc": "2.0", "id": 1}, 1),  # no method, no result
        ({"jsonrpc": "2.0", "id": 1, "method": 42}, 1),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None),
        ("[]", None),
        ('"ping"', None),
    ],
)
def test_a_message_that_is_not_json_rpc_2_is_400_32600(client, agent, message, echoed_id):
    error_of(post(client, message, **agent), 400, -32600, request_id=echoed_id)


def test_params_must_be_an_object(client, agent):
    response = post(client, {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": [1]}, **agent)
    error_of(response, 400, -32602, request_id=2)


def test_an_unknown_method_is_400_32601_with_its_id(client, agent):
    response = rpc(client, agent, "resources/list", request_id="abc")
    assert "resources/list" in response.json()["error"]["message"]
    error_of(response, 400, -32601, request_id="abc")


# --- initialize and ping --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requested", "negotiated"),
    [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2025-11-25"),  # not honoured: the client is offered the newest and decides
        ("2030-01-01", "2025-11-25"),
    ],
)
def test_initialize_negotiates_the_protocol_version(client, agent, requested, negotiated):
    params = {
        "protocolVersion": requested,
        "capabilities": {"roots": {}},
        "clientInfo": {"name": "test", "version": "1"},
        "_meta": {"progressToken": "p1"},
    }
    result = result_of(rpc(client, agent, "initialize", params))
    assert result["protocolVersion"] == negotiated
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"] == {
        "name": "chauffeur-booking",
        "title": "Vienna chauffeur booking",
        "version": "0.2.0",
    }
    assert all(name in result["instructions"] for name in TOOL_NAMES)


@pytest.mark.parametrize("params", [{}, {"protocolVersion": 20251125}, None])
def test_initialize_needs_a_protocol_version(client, agent, params):
    error_of(rpc(client, agent, "initialize", params), 400, -32602, request_id=1)


def test_ping_answers_an_empty_result(client, agent):
    assert result_of(rpc(client, agent, "ping")) == {}
    assert result_of(rpc(client, agent, "ping", {"_meta": {"progressToken": 1}})) == {}


# --- tools/list -----------------------------------------------------------------------------------


def test_tools_list_describes_every_tool(client, agent):
    listed = result_of(rpc(client, agent, "tools/list", {"_meta": {}}))["tools"]
    assert [tool["name"] for tool in listed] == TOOL_NAMES
    for tool in listed:
        assert set(tool) == {
            "name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta",
        }  # fmt: skip
        Draft202012Validator.check_schema(tool["inputSchema"])
        Draft202012Validator.check_schema(tool["outputSchema"])
        assert tool["inputSchema"]["additionalProperties"] is False
        read_only = tool["name"] in READ_TOOLS
        assert tool["annotations"]["readOnlyHint"] is read_only
        assert tool["annotations"]["idempotentHint"] is read_only
        assert tool["annotations"]["destructiveHint"] is False
        assert tool["_meta"]["requiredScope"] == ("booking.read" if read_only else "booking.write")


def test_tools_list_with_underscore_names(client, agent):
    listed = result_of(rpc(client, agent, "tools/list", path=f"{MCP}?toolNames=underscore"))["tools"]
    assert [tool["name"] for tool in listed] == [name.replace(".", "_") for name in TOOL_NAMES]


# --- tools/call: protocol errors ------------------------------------------------------------------


def test_an_unknown_tool_is_400_32602(client, agent):
    response = call(client, agent, "booking.teleport", {})
    assert "booking.teleport" in response.json()["error"]["message"]
    error_of(response, 400, -32602, request_id=7)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"name": 5},
        {"name": "booking.calculate_price", "arguments": [1]},
        {"name": "booking.calculate_price", "arguments": "x"},
    ],
)
def test_malformed_tools_call_params_are_400_32602(client, agent, params):
    error_of(rpc(client, agent, "tools/call", params), 400, -32602, request_id=1)
