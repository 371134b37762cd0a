"""MCP 2026-07-28 on /api/mcp beside the 2025 revisions (docs/decisions.md §10): no handshake, the
version and capabilities in every request's `_meta`, headers that must repeat the body, server/discover,
`resultType` on every result, and the HTTP statuses that revision gives its errors. Answers are checked
against the revision's own published JSON Schema (tests/mcp_endpoint/schemas), not only our reading of it."""

import base64
import json
from functools import cache
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.conftest import bearer
from tests.mcp_endpoint.mcp import QUOTE_TOOLS, TOOL_NAMES, VALID_ARGUMENTS, error_of, post, rpc, tool_problem

pytestmark = pytest.mark.django_db

MODERN = "2026-07-28"
SCHEMAS = (
    Path(__file__).parent / "schemas"
)  # schema/<revision>/schema.json of modelcontextprotocol/modelcontextprotocol
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
ENVELOPE = {
    VERSION_KEY: MODERN,
    CAPABILITIES_KEY: {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}


@cache
def official(revision: str, definition: str) -> Draft202012Validator:
    """A validator for one definition of a revision's published schema."""
    schema = json.loads((SCHEMAS / f"mcp-{revision}.json").read_text())
    return Draft202012Validator({**schema, "$ref": f"#/$defs/{definition}"})


def modern(client, headers, method, params=None, *, request_id=1, meta=ENVELOPE, **http):
    """A request as a 2026-07-28 client sends it: `_meta` in the body, repeated in the headers (`http`
    changes them; None leaves one out)."""
    params = {**(params or {}), "_meta": meta}
    mirrored = {"HTTP_MCP_PROTOCOL_VERSION": MODERN, "HTTP_MCP_METHOD": method}
    if "name" in params:
        mirrored["HTTP_MCP_NAME"] = params["name"]
    sent = {key: value for key, value in {**mirrored, **http}.items() if value is not None}
    return rpc(client, headers, method, params, request_id=request_id, **sent)


def answer_of(response, definition: str) -> dict:
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    official(MODERN, definition).validate(response.json())
    result = response.json()["result"]
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == {
        "name": "chauffeur-booking",
        "title": "Vienna chauffeur booking",
        "version": "0.2.0",
    }
    return result


def test_server_discover_names_versions_capabilities_and_identity(client, agent):
    result = answer_of(modern(client, agent, "server/discover"), "DiscoverResultResponse")
    assert result["supportedVersions"] == [MODERN, "2025-11-25", "2025-06-18", "2025-03-26"]
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert all(name in result["instructions"] for name in TOOL_NAMES)
    assert (result["ttlMs"], result["cacheScope"]) == (300_000, "public")


def test_tools_list_is_cacheable_and_lists_what_the_2025_revisions_list(client, agent):
    result = answer_of(modern(client, agent, "tools/list"), "ListToolsResultResponse")
    legacy = rpc(client, agent, "tools/list").json()["result"]
    assert result["tools"] == legacy["tools"] and [tool["name"] for tool in result["tools"]] == TOOL_NAMES
    assert (result["ttlMs"], result["cacheScope"]) == (300_000, "public")


# What counts from now may differ by a second between two calls.
COUNTED_FROM_NOW = {
    "booking.estimate_distance": ["estimatedArrival"],
    "booking.check_availability": ["bookingDatetime", "earliestPickup"],
}


@pytest.mark.parametrize("tool", QUOTE_TOOLS)
def test_a_tool_answers_as_under_2025(client, agent, tool):
    params = {"name": tool, "arguments": VALID_ARGUMENTS[tool]}
    result = answer_of(modern(client, agent, "tools/call", params), "CallToolResultResponse")
    legacy = rpc(client, agent, "tools/call", params).json()["result"]
    assert result["isError"] is False
    for moving in COUNTED_FROM_NOW.get(tool, []):
        result["structuredContent"].pop(moving)
        legacy["structuredContent"].pop(moving)
    assert result["structuredContent"] == legacy["structuredContent"]


def test_a_refused_argument_is_an_error_result_with_the_problem_as_text(client, agent):
    params = {
        "name": "booking.calculate_price",
        "arguments": {"distanceKm": "twenty", "vehicleClass": "first"},
    }
    response = modern(client, agent, "tools/call", params)
    answer_of(response, "CallToolResultResponse")
    problem = tool_problem(response)
    assert (problem["code"], list(problem["errors"])) == ("invalid_request", ["distanceKm"])


def test_a_name_outside_ascii_travels_base64_encoded(client, agent):
    params = {"name": "booking.calculate_price", "arguments": VALID_ARGUMENTS["booking.calculate_price"]}
    encoded = "=?base64?" + base64.b64encode(b"booking.calculate_price").decode() + "?="
    answer_of(modern(client, agent, "tools/call", params, HTTP_MCP_NAME=encoded), "CallToolResultResponse")


# --- refusals: the statuses of 2026-07-28, Transports › Streamable HTTP ----------------------------


@pytest.mark.parametrize(
    ("meta", "missing"),
    [
        (None, VERSION_KEY),
        ({VERSION_KEY: MODERN}, CAPABILITIES_KEY),
        ({VERSION_KEY: MODERN, CAPABILITIES_KEY: "all"}, CAPABILITIES_KEY),
    ],
)
def test_a_request_without_its_envelope_is_400_32602(client, agent, meta, missing):
    response = modern(client, agent, "tools/list", meta=meta, request_id=4)
    error_of(response, 400, -32602, request_id=4)
    assert missing in response.json()["error"]["message"]
    official(MODERN, "InvalidParamsError").validate(response.json()["error"])


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_MCP_METHOD": "tools/list"},  # the body says tools/call
        {"HTTP_MCP_METHOD": None},
        {"HTTP_MCP_NAME": "booking.create_checkout"},
        {"HTTP_MCP_NAME": None},
        {"HTTP_MCP_NAME": "=?base64?not base64!?="},
        {"HTTP_MCP_PROTOCOL_VERSION": None},
    ],
)
def test_headers_that_disagree_with_the_body_are_400_32020(client, agent, headers):
    params = {"name": "booking.calculate_price", "arguments": VALID_ARGUMENTS["booking.calculate_price"]}
    response = modern(client, agent, "tools/call", params, **headers, request_id=8)
    error_of(response, 400, -32020, request_id=8)
    official(MODERN, "HeaderMismatchError").validate(response.json())


def test_a_legacy_header_makes_the_request_legacy(client, agent):
    params = {"name": "booking.calculate_price", "arguments": VALID_ARGUMENTS["booking.calculate_price"]}
    response = modern(client, agent, "tools/call", params, HTTP_MCP_PROTOCOL_VERSION="2025-11-25")
    assert response.status_code == 200 and "resultType" not in response.json()["result"]


def test_a_body_version_other_than_the_header_is_400_32020(client, agent):
    response = modern(client, agent, "tools/list", meta={**ENVELOPE, VERSION_KEY: "2027-01-01"})
    error_of(response, 400, -32020, request_id=1)


@pytest.mark.parametrize("method", ["initialize", "ping", "resources/list"])
def test_an_unknown_method_is_404_32601(client, agent, method):
    response = modern(client, agent, method, {"protocolVersion": "2025-11-25"}, request_id="m")
    error_of(response, 404, -32601, request_id="m")
    official(MODERN, "MethodNotFoundError").validate(response.json()["error"])
    if method == "initialize":
        assert "server/discover" in response.json()["error"]["message"]


def test_an_unknown_tool_is_400_32602(client, agent):
    response = modern(client, agent, "tools/call", {"name": "booking.teleport", "arguments": {}})
    error_of(response, 400, -32602, request_id=1)


def test_an_unsupported_version_is_400_32022_in_the_official_shape(client, agent):
    response = modern(client, agent, "tools/list", HTTP_MCP_PROTOCOL_VERSION="2027-01-01")
    official(MODERN, "UnsupportedProtocolVersionError").validate(response.json())
    assert error_of(response, 400, -32022, request_id=1)["supported"][0] == MODERN


def test_batches_are_refused(client, agent):
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ENVELOPE}}
    response = post(client, [message], **agent, HTTP_MCP_PROTOCOL_VERSION=MODERN)
    error_of(response, 400, -32600)


def test_a_missing_scope_stays_403_with_the_scope_challenge(client):
    reader = bearer("booking.read")
    params = {"name": "booking.create_checkout", "arguments": {}}
    response = modern(client, reader, "tools/call", params, request_id=2)
    assert error_of(response, 403, -32011, request_id=2)["requiredScope"] == "booking.write"
    assert response["WWW-Authenticate"].startswith('Bearer error="insufficient_scope"')
    assert 'scope="booking.read booking.write"' in response["WWW-Authenticate"]  # what it had, and needs


# --- the 2025 answers against the 2025-11-25 schema -------------------------------------------------


def test_the_2025_answers_follow_the_2025_11_25_schema(client, agent):
    params = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    official("2025-11-25", "InitializeResult").validate(
        rpc(client, agent, "initialize", params).json()["result"]
    )
    official("2025-11-25", "ListToolsResult").validate(rpc(client, agent, "tools/list").json()["result"])
    for tool, arguments in [*VALID_ARGUMENTS.items(), ("booking.calculate_price", {"distanceKm": "x"})]:
        result = rpc(client, agent, "tools/call", {"name": tool, "arguments": arguments}).json()["result"]
        official("2025-11-25", "CallToolResult").validate(result)
    error = rpc(client, agent, "nothing/here").json()
    official("2025-11-25", "JSONRPCErrorResponse").validate(error)
