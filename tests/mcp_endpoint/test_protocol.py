"""The MCP protocol on /api/mcp as the 2025 revisions speak it (docs/decisions.md §10): the metadata
document, protocol version negotiation, initialize, ping and tools/list, batches, the underscore tool
names, and every JSON-RPC error code, each a 200 once a message could be read (2026-07-28 is in
test_modern.py)."""

import pytest
from jsonschema import Draft202012Validator

from tests.mcp_endpoint.mcp import (
    MCP,
    READ_TOOLS,
    TOOL_NAMES,
    WRITE_TOOLS,
    call,
    error_of,
    post,
    result_of,
    rpc,
)

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
    assert document["protocolVersions"] == ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]
    assert [tool["name"] for tool in document["tools"]] == TOOL_NAMES
    scopes = {tool["name"]: tool["requiredScope"] for tool in document["tools"]}
    assert scopes == {
        **dict.fromkeys(READ_TOOLS, "booking.read"),
        **dict.fromkeys(WRITE_TOOLS, "booking.write"),
    }
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


def test_a_query_with_too_many_parameters_is_refused_in_json_rpc(client, agent, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    crowded = "&".join(f"p{number}=1" for number in range(6))
    error_of(client.get(f"{MCP}?{crowded}"), 400, -32600)
    error_of(rpc(client, agent, "tools/list", path=f"{MCP}?{crowded}"), 400, -32600, request_id=1)
    assert result_of(rpc(client, agent, "tools/list", path=f"{MCP}?toolNames=dotted&p=1"))["tools"]


# --- protocol versions ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26"])
def test_a_supported_protocol_version_header_is_accepted(client, agent, version):
    assert result_of(rpc(client, agent, "ping", HTTP_MCP_PROTOCOL_VERSION=version)) == {}


@pytest.mark.parametrize("version", ["2024-11-05", "latest", "2027-01-01"])
def test_an_unsupported_protocol_version_header_is_400_32022(client, agent, version):
    """UnsupportedProtocolVersionError (2026-07-28, Basic › Versioning) at any revision: the client learns
    what to retry with."""
    response = rpc(client, agent, "ping", request_id=5, HTTP_MCP_PROTOCOL_VERSION=version)
    data = error_of(response, 400, -32022, request_id=5)
    assert data == {
        "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
        "requested": version,
    }


def test_a_long_unsupported_version_is_not_echoed_in_full(client, agent):
    response = rpc(client, agent, "ping", HTTP_MCP_PROTOCOL_VERSION="9" * 5000)
    assert len(response.content) < 1000
    assert error_of(response, 400, -32022, request_id=1)["requested"].endswith("(5000 characters)")


def test_server_discover_is_a_2026_method(client, agent):
    error_of(rpc(client, agent, "server/discover", request_id=3), 200, -32601, request_id=3)


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
        # too deep for Python's parser: the rate limiter's look at the body must not crash
        pytest.param("[" * 100_000, id="nested-too-deep"),
    ],
)
def test_a_parse_error_is_400_32700(client, agent, body):
    error_of(post(client, body, **agent), 400, -32700)


def test_a_body_that_is_not_strict_json_is_billed_even_if_it_names_a_housekeeping_method(client, agent):
    """The rate limiter reads the body as the endpoint does (mcp_endpoint/jsonrpc.decode): what the endpoint
    refuses as unreadable counts in the ordinary budget, not the housekeeping one."""
    body = '{"jsonrpc": "2.0", "method": "notifications/initialized", "params": {"at": NaN}}'
    refused = post(client, body, **agent)
    error_of(refused, 400, -32700)
    assert refused["RateLimit"].startswith('"default";r=59;')


# --- batches (2025-03-26, Basic › Batching) ---------------------------------------------------------


def batch_answers(response) -> dict:
    """A batch's answers by id, each checked as a JSON-RPC 2.0 response."""
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    answers = response.json()
    assert isinstance(answers, list)
    assert all(
        answer["jsonrpc"] == "2.0" and ("result" in answer) != ("error" in answer) for answer in answers
    )
    return {answer["id"]: answer for answer in answers}


@pytest.mark.parametrize("header", [{}, {"HTTP_MCP_PROTOCOL_VERSION": "2025-03-26"}])
def test_a_batch_is_answered_under_2025_03_26(client, agent, header):
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},  # a notification: no answer
        {
            "jsonrpc": "2.0",
            "id": "two",
            "method": "tools/call",
            "params": {
                "name": "booking.calculate_price",
                "arguments": {"distanceKm": 20, "vehicleClass": "first"},
            },
        },
        {"jsonrpc": "2.0", "id": 3, "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}},
        42,
    ]
    answers = batch_answers(post(client, batch, **agent, **header))
    assert set(answers) == {1, "two", 3, 4, None}
    assert answers[1]["result"] == {}
    assert answers["two"]["result"]["structuredContent"]["priceEur"] > 0
    assert answers[3]["error"]["code"] == -32601
    assert answers[4]["error"]["code"] == -32600 and "batch" in answers[4]["error"]["message"]
    assert answers[None]["error"]["code"] == -32600


def test_a_batch_of_notifications_is_202(client, agent):
    batch = [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "result": {}},
    ]
    response = post(client, batch, **agent)
    assert (response.status_code, response.content, "Content-Type" in response) == (202, b"", False)


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_later_revisions_refuse_batches(client, agent, version):
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}]
    response = post(client, batch, **agent, HTTP_MCP_PROTOCOL_VERSION=version)
    error_of(response, 400, -32600)
    assert version in response.json()["error"]["message"]


@pytest.mark.parametrize(("size", "reason"), [(0, "empty"), (21, "at most 20")])
def test_a_batch_holds_one_to_twenty_messages(client, agent, size, reason):
    response = post(client, [{"jsonrpc": "2.0", "id": n, "method": "ping"} for n in range(size)], **agent)
    error_of(response, 400, -32600)
    assert reason in response.json()["error"]["message"]


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
        ('"ping"', None),
    ],
)
def test_a_message_that_is_not_json_rpc_2_is_400_32600(client, agent, message, echoed_id):
    error_of(post(client, message, **agent), 400, -32600, request_id=echoed_id)


def test_params_must_be_an_object(client, agent):
    response = post(client, {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": [1]}, **agent)
    error_of(response, 200, -32602, request_id=2)


def test_an_unknown_method_is_200_32601_with_its_id(client, agent):
    """200: the official TypeScript client takes any other status for a broken transport and drops the code."""
    response = rpc(client, agent, "resources/list", request_id="abc")
    assert "resources/list" in response.json()["error"]["message"]
    error_of(response, 200, -32601, request_id="abc")


def test_a_long_method_name_is_not_echoed_in_full(client, agent):
    response = rpc(client, agent, "x" * 1_000_000)
    assert len(response.content) < 1000
    error_of(response, 200, -32601, request_id=1)


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
    error_of(rpc(client, agent, "initialize", params), 200, -32602, request_id=1)


def test_ping_answers_an_empty_result(client, agent):
    assert result_of(rpc(client, agent, "ping")) == {}
    assert result_of(rpc(client, agent, "ping", {"_meta": {"progressToken": 1}})) == {}


# --- tools/list -----------------------------------------------------------------------------------


def test_tools_list_describes_every_tool(client, agent):
    listed = result_of(rpc(client, agent, "tools/list", {"_meta": {}}))["tools"]
    assert [tool["name"] for tool in listed] == TOOL_NAMES
    for tool in listed:
        assert set(tool) == {
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
            "_meta",
        }
        Draft202012Validator.check_schema(tool["inputSchema"])
        Draft202012Validator.check_schema(tool["outputSchema"])
        assert tool["inputSchema"]["additionalProperties"] is False
        read_only, cancels = tool["name"] in READ_TOOLS, tool["name"] == "booking.cancel_booking"
        changes = tool["name"] == "booking.change_booking"
        assert tool["annotations"]["readOnlyHint"] is read_only
        assert tool["annotations"]["idempotentHint"] is (read_only or cancels)  # each checkout books anew
        assert tool["annotations"]["destructiveHint"] is (cancels or changes)
        assert tool["_meta"]["requiredScope"] == ("booking.read" if read_only else "booking.write")


def test_tools_list_with_underscore_names(client, agent):
    listed = result_of(rpc(client, agent, "tools/list", path=f"{MCP}?toolNames=underscore"))["tools"]
    assert [tool["name"] for tool in listed] == [name.replace(".", "_") for name in TOOL_NAMES]
    descriptions = " ".join(tool["description"] for tool in listed)
    assert "booking_calculate_price" in descriptions
    assert not any(name in descriptions for name in TOOL_NAMES)  # every name as the client knows it


def test_instructions_name_the_tools_as_listed(client, agent):
    params = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    underscore = result_of(rpc(client, agent, "initialize", params, path=f"{MCP}?toolNames=underscore"))
    assert "booking_create_checkout" in underscore["instructions"]
    assert not any(name in underscore["instructions"] for name in TOOL_NAMES)


# --- tools/call: protocol errors ------------------------------------------------------------------


def test_an_unknown_tool_is_200_32602(client, agent):
    response = call(client, agent, "booking.teleport", {})
    assert "booking.teleport" in response.json()["error"]["message"]
    error_of(response, 200, -32602, request_id=7)
    long_name = call(client, agent, "t" * 1_000_000, {})
    assert len(long_name.content) < 1000


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"name": 5},
        {"name": "booking.calculate_price", "arguments": [1]},
        {"name": "booking.calculate_price", "arguments": "x"},
    ],
)
def test_malformed_tools_call_params_are_200_32602(client, agent, params):
    error_of(rpc(client, agent, "tools/call", params), 200, -32602, request_id=1)


def _price_calls(count: int) -> list[dict]:
    """Billable messages (tools/call); pings are housekeeping, counted in a budget of their own."""
    arguments = {"distanceKm": 20, "vehicleClass": "first"}
    return [
        {
            "jsonrpc": "2.0",
            "id": n,
            "method": "tools/call",
            "params": {"name": "booking.calculate_price", "arguments": arguments},
        }
        for n in range(count)
    ]


def test_every_message_of_a_batch_counts_against_the_rate_limit(client, agent):
    response = post(client, _price_calls(20), **agent)
    assert response.status_code == 200 and len(response.json()) == 20
    assert response["RateLimit"].startswith('"default";r=40;')  # 60 a minute, 20 spent


def test_a_batch_over_the_rate_limit_is_refused_whole_and_costs_only_itself(client, agent):
    for message in _price_calls(50):
        assert post(client, message, **agent).status_code == 200
    refused = post(client, _price_calls(20), **agent)
    seconds = int(refused["Retry-After"])
    assert error_of(refused, 429, -32013)["retryAfter"] == seconds >= 1  # a batch has no one id to name
    assert refused.json()["error"]["message"] == f"Rate limit reached: try again in {seconds} seconds."
    assert refused.reason_phrase == f"Too Many Requests: retry in {seconds} seconds"
    # Only the refused request itself was counted: nine single messages still fit in the minute.
    answered = [post(client, message, **agent) for message in _price_calls(9)]
    assert [response.status_code for response in answered] == [200] * 9
    assert answered[-1]["RateLimit"].startswith('"default";r=0;')
