"""The agent endpoint /api/mcp (docs/decisions.md §10): transport rules, every JSON-RPC method and error code,
scopes, and tools whose results are the /api/v1 responses. The official client runs against a live
server in test_mcp_client.py."""

import json
from datetime import timedelta

import pytest
import responses
from django.utils import timezone
from jsonschema import Draft202012Validator

from access import tokens
from agents.tools import TOOLS
from booking.models import Booking
from tests.agents.mcp import (
    MCP,
    READ_TOOLS,
    TOOL_NAMES,
    VALID_ARGUMENTS,
    call,
    checkout_arguments,
    error_of,
    output_validator,
    post,
    result_of,
    rpc,
    tool_result,
)
from tests.conftest import bearer, start_of_window

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


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


def test_get_for_an_event_stream_is_405_with_allow(client):
    response = client.get(MCP, HTTP_ACCEPT="text/event-stream")
    error_of(response, 405, -32600)
    assert response["Allow"] == "GET, POST"


@pytest.mark.parametrize("method", ["DELETE", "PUT", "PATCH"])
def test_other_methods_are_405_in_json_rpc(client, agent, method):
    response = client.generic(method, MCP, **agent)
    error_of(response, 405, -32600)
    assert response["Allow"] == "GET, POST"


# --- POST: the token ----------------------------------------------------------------------------------


def test_a_message_without_a_token_is_401_with_its_id(client):
    response = rpc(client, {}, "tools/list", request_id="req-9")
    data = error_of(response, 401, -32010, request_id="req-9")
    assert response["WWW-Authenticate"] == 'Bearer realm="chauffeur"'
    assert data["code"] == "unauthorized" and data["hint"]


@pytest.mark.parametrize("state", ["unknown", "revoked", "expired"])
def test_a_dead_token_is_401_invalid_token(client, state):
    token, plain = tokens.issue_token(name="agent", scopes=["booking.read"])
    if state == "unknown":
        plain = plain[:-4] + "AAAA"
    elif state == "revoked":
        tokens.revoke(token)
    else:
        token.expires_at = timezone.now() - timedelta(seconds=1)
        token.save()
    response = rpc(client, {"HTTP_AUTHORIZATION": f"Bearer {plain}"}, "ping", request_id=3)
    assert error_of(response, 401, -32010, request_id=3)["code"] == "unauthorized"
    assert response["WWW-Authenticate"] == 'Bearer realm="chauffeur", error="invalid_token"'


def test_notifications_need_a_token_too(client):
    response = post(client, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    error_of(response, 401, -32010)


def test_a_used_token_records_its_last_use(client, agent):
    result_of(rpc(client, agent, "ping"))
    token = tokens.authenticate(agent["HTTP_AUTHORIZATION"].removeprefix("Bearer "))
    assert token.last_used_at is not None


# --- POST: transport rules ------------------------------------------------------------------------


def test_a_foreign_origin_is_403_and_our_own_is_accepted(client, agent):
    response = rpc(client, agent, "ping", request_id=4, HTTP_ORIGIN="https://evil.example")
    assert error_of(response, 403, -32012, request_id=4)["code"] == "forbidden_origin"
    assert result_of(rpc(client, agent, "ping", HTTP_ORIGIN="http://testserver")) == {}
    assert result_of(rpc(client, agent, "ping", HTTP_ORIGIN="https://chauffeur.test")) == {}


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


# --- POST: JSON-RPC errors ------------------------------------------------------------------------


@pytest.mark.parametrize("body", ["{not json", '{"jsonrpc": "2.0", "id": 1, "method": NaN}', "\xff", "  "])
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


@pytest.mark.parametrize("method", ["notifications/initialized", "notifications/cancelled", "anything/else"])
def test_notifications_are_accepted_with_202_and_no_body(client, agent, method):
    response = post(client, {"jsonrpc": "2.0", "method": method, "params": {"requestId": 1}}, **agent)
    assert (response.status_code, response.content) == (202, b"")


def test_a_response_from_the_client_is_accepted_with_202(client, agent):
    response = post(client, {"jsonrpc": "2.0", "id": 9, "result": {}}, **agent)
    assert (response.status_code, response.content) == (202, b"")


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


def test_any_valid_token_may_list_the_tools(client):
    assert len(result_of(rpc(client, bearer("booking.write"), "tools/list"))["tools"]) == 5


def test_the_checkout_tool_takes_the_agents_booking_data(client, agent):
    listed = {tool["name"]: tool for tool in result_of(rpc(client, agent, "tools/list"))["tools"]}
    schema = listed["booking.create_checkout"]["inputSchema"]
    assert schema["required"] == ["amount", "bookingData"]
    ride = schema["properties"]["bookingData"]
    assert set(ride["required"]) == {"from", "to", "pickupDatetime", "vehicleClass"}
    assert {"waterChoice", "tourName", "flightData"}.isdisjoint(ride["properties"])
    assert {"name", "email", "phone", "flightNumber", "locale", "notes", "durationHours"} <= set(
        ride["properties"]
    )
    assert ride["additionalProperties"] is False


@pytest.mark.parametrize(
    ("tool", "path"),
    [
        ("booking.estimate_distance", "/api/v1/distance"),
        ("booking.check_availability", "/api/v1/availability"),
        ("booking.calculate_price", "/api/v1/price"),
        ("places.autocomplete", "/api/v1/places"),
    ],
)
def test_read_tools_take_the_declaration_of_their_v1_operation(client, agent, tool, path):
    """One declaration feeds REST validation, /openapi.json and inputSchema: they cannot disagree."""
    listed = {item["name"]: item for item in result_of(rpc(client, agent, "tools/list"))["tools"]}
    schema = listed[tool]["inputSchema"]
    parameters = client.get("/openapi.json").json()["paths"][path]["get"]["parameters"]
    assert set(schema["properties"]) == {parameter["name"] for parameter in parameters}
    assert set(schema["required"]) == {
        parameter["name"] for parameter in parameters if parameter.get("required")
    }
    for parameter in parameters:
        declared = schema["properties"][parameter["name"]]
        assert declared.get("type") == parameter["schema"].get("type"), parameter["name"]
        assert declared.get("enum") == parameter["schema"].get("enum"), parameter["name"]


def test_the_checkout_tools_output_is_the_v1_checkout_response(client, agent):
    listed = {item["name"]: item for item in result_of(rpc(client, agent, "tools/list"))["tools"]}
    document = client.get("/openapi.json").json()
    v1 = document["paths"]["/api/v1/checkout"]["post"]["responses"]["201"]["content"]["application/json"]
    component = document["components"]["schemas"][v1["schema"]["$ref"].rsplit("/", 1)[1]]
    output = listed["booking.create_checkout"]["outputSchema"]
    assert output["properties"] == component["properties"]
    assert set(output["required"]) == set(component["required"])


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


# --- scopes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("scopes", [("booking.read",), ("booking.write",), ("booking.read", "booking.write")])
@pytest.mark.parametrize("tool", TOOL_NAMES)
def test_the_scope_matrix(client, agent, tool, scopes):
    arguments = (
        checkout_arguments(client, agent) if tool == "booking.create_checkout" else VALID_ARGUMENTS[tool]
    )
    needed = "booking.write" if tool == "booking.create_checkout" else "booking.read"
    response = call(client, bearer(*scopes), tool, arguments, request_id=11)
    if needed in scopes:
        assert tool_result(response)["isError"] is False
        assert Booking.objects.count() == (1 if tool == "booking.create_checkout" else 0)
        return
    data = error_of(response, 403, -32011, request_id=11)
    assert (data["code"], data["requiredScope"]) == ("insufficient_scope", needed)
    assert response["WWW-Authenticate"] == f'Bearer error="insufficient_scope", scope="{needed}"'
    assert Booking.objects.count() == 0


# --- tools/call: results are the /api/v1 responses --------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "path"),
    [
        (
            "booking.estimate_distance",
            {"from": "Hotel Sacher", "to": "Flughafen Wien", "pickupDatetime": "2030-05-02T10:00:00"},
            "/api/v1/distance",
        ),
        (
            "booking.estimate_distance",
            {"from": "Stephansplatz", "to": "Salzburg", "pickupDatetime": "2030-05-02T10:00:00+02:00"},
            "/api/v1/distance",
        ),
        (
            "booking.check_availability",
            {"pickupDatetime": "2030-05-02T10:00:00+02:00"},
            "/api/v1/availability",
        ),
        (
            "booking.check_availability",
            {"pickupDatetime": "2026-12-01T07:00:00", "bookingDatetime": "2026-11-30T23:00:00"},
            "/api/v1/availability",
        ),
        ("booking.calculate_price", {"distanceKm": 21.9, "vehicleClass": "executive"}, "/api/v1/price"),
        (
            "booking.calculate_price",
            {"distanceKm": 290.4, "vehicleClass": "business-van", "inZoneA": False, "waitMinutes": 20},
            "/api/v1/price",
        ),
        (
            "booking.calculate_price",
            {"distanceKm": 0, "vehicleClass": "first", "bookingType": "hourly", "durationHours": 3.5},
            "/api/v1/price",
        ),
        ("places.autocomplete", {"input": "Sacher"}, "/api/v1/places"),
        ("places.autocomplete", {"input": "flughafen", "locale": "de"}, "/api/v1/places"),
    ],
)
def test_structured_content_is_the_v1_response(client, agent, tool, arguments, path):
    result = tool_result(call(client, agent, tool, arguments))
    query = {
        key: str(value).lower() if isinstance(value, bool) else value for key, value in arguments.items()
    }
    v1 = client.get(path, query)
    assert v1.status_code == 200, v1.content
    assert result["isError"] is False
    assert result["structuredContent"] == v1.json()
    assert result["content"][0]["text"] == v1.content.decode()  # the very bytes, Decimal places included
    output_validator(client, agent, tool).validate(result["structuredContent"])


@pytest.mark.parametrize(
    ("tool", "arguments", "path", "code"),
    [
        (
            "booking.estimate_distance",
            {"from": "Hotel", "to": "Salzburg"},
            "/api/v1/distance",
            "route_not_found",
        ),
        (
            "booking.calculate_price",
            {"distanceKm": -1, "vehicleClass": "executive"},
            "/api/v1/price",
            "invalid_request",
        ),
        (
            "booking.calculate_price",
            {"distanceKm": 10, "vehicleClass": "limo"},
            "/api/v1/price",
            "invalid_request",
        ),
        (
            "booking.calculate_price",
            {"distanceKm": 10, "vehicleClass": "first", "tourSlug": "atlantis"},
            "/api/v1/price",
            "unknown_tour",
        ),
        (
            "booking.check_availability",
            {"pickupDatetime": "2026-03-29T02:30:00"},
            "/api/v1/availability",
            "invalid_request",
        ),
        ("places.autocomplete", {"input": "x"}, "/api/v1/places", "invalid_request"),
    ],
)
def test_refusals_are_is_error_results_carrying_the_v1_problem(client, agent, tool, arguments, path, code):
    result = tool_result(call(client, agent, tool, arguments))
    v1 = client.get(path, arguments)
    assert result["isError"] is True
    assert result["structuredContent"] == v1.json()
    problem = result["structuredContent"]
    assert (problem["code"], problem["status"]) == (code, v1.status_code)
    assert problem["detail"] and problem["hint"]


def test_an_upstream_outage_is_an_is_error_result(client, agent, settings):
    settings.GOOGLE_MAPS_API_KEY = "test-key"
    settings.GOOGLE_ROUTES_URL = "https://routes.test"
    with responses.RequestsMock() as google:
        google.post("https://routes.test/directions/v2:computeRoutes", status=503)
        google.post("https://routes.test/directions/v2:computeRoutes", status=503)
        result = tool_result(
            call(client, agent, "booking.estimate_distance", VALID_ARGUMENTS["booking.estimate_distance"])
        )
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == "upstream_unavailable"
    assert "test-key" not in json.dumps(result)


def test_missing_and_unknown_arguments_are_named(client, agent):
    result = tool_result(call(client, agent, "booking.calculate_price", {"distancekm": 10}))
    assert result["isError"] is True
    errors = result["structuredContent"]["errors"]
    assert set(errors) == {"distanceKm", "vehicleClass", "distancekm"}
    assert errors["distancekm"] == ["This tool does not take this argument."]


def test_arguments_may_be_omitted_and_are_then_validated(client, agent):
    result = tool_result(rpc(client, agent, "tools/call", {"name": "booking.check_availability"}))
    assert result["isError"] is True
    assert set(result["structuredContent"]["errors"]) == {"pickupDatetime"}


def test_underscore_aliases_call_the_same_tools(client, agent):
    for name, arguments in VALID_ARGUMENTS.items():
        dotted = tool_result(call(client, agent, name, arguments))
        aliased = tool_result(call(client, agent, name.replace(".", "_"), arguments))
        if name == "booking.estimate_distance":  # the arrival counts from now
            dotted["structuredContent"].pop("estimatedArrival")
            aliased["structuredContent"].pop("estimatedArrival")
        assert aliased["structuredContent"] == dotted["structuredContent"], name


def test_tools_call_accepts_meta(client, agent):
    params = {"name": "booking.calculate_price", "arguments": VALID_ARGUMENTS["booking.calculate_price"],
              "_meta": {"progressToken": "t1"}}  # fmt: skip
    assert tool_result(rpc(client, agent, "tools/call", params))["isError"] is False


# --- tools/call: booking.create_checkout ----------------------------------------------------------


def test_a_checkout_through_the_tool_stores_the_booking_the_rest_checkout_would(client, agent):
    arguments = checkout_arguments(client, agent, phone="+43 660 1234567", flightNumber="OS 123", locale="de")
    result = tool_result(call(client, agent, "booking.create_checkout", arguments))
    assert result["isError"] is False
    output_validator(client, agent, "booking.create_checkout").validate(result["structuredContent"])
    rest = client.post("/api/v1/checkout", arguments, content_type="application/json", **agent)
    assert rest.status_code == 201, rest.content
    assert set(result["structuredContent"]) == set(rest.json()) == {"sessionId", "url", "reference", "status"}
    assert result["structuredContent"]["status"] == rest.json()["status"] == "pending_payment"

    by_tool = Booking.objects.get(reference=result["structuredContent"]["reference"])
    by_rest = Booking.objects.get(reference=rest.json()["reference"])
    assert by_tool.provider_session_id == result["structuredContent"]["sessionId"]
    assert (
        result["structuredContent"]["url"]
        == f"https://chauffeur.test/booking/sandbox/{by_tool.provider_session_id}"
    )
    own = {"id", "reference", "provider_session_id", "created_at", "updated_at"}
    fields = [field.attname for field in Booking._meta.concrete_fields if field.attname not in own]
    assert {name: getattr(by_tool, name) for name in fields} == {
        name: getattr(by_rest, name) for name in fields
    }


def test_the_checkout_tool_refuses_the_websites_own_fields_and_needs_time_and_class(client, agent):
    arguments = checkout_arguments(client, agent, waterChoice="still", tourName="Wachau", flightData={"a": 1})
    del arguments["bookingData"]["pickupDatetime"], arguments["bookingData"]["vehicleClass"]
    result = tool_result(call(client, agent, "booking.create_checkout", arguments))
    assert result["isError"] is True
    assert set(result["structuredContent"]["errors"]) == {
        "bookingData.waterChoice", "bookingData.tourName", "bookingData.flightData",
        "bookingData.pickupDatetime", "bookingData.vehicleClass",
    }  # fmt: skip
    assert Booking.objects.count() == 0


def test_a_wrong_amount_is_an_is_error_result_with_the_expected_amount(client, agent):
    arguments = checkout_arguments(client, agent)
    expected = arguments["amount"]
    result = tool_result(
        call(client, agent, "booking.create_checkout", {**arguments, "amount": expected - 100})
    )
    problem = result["structuredContent"]
    assert (result["isError"], problem["code"], problem["expectedAmount"]) == (
        True,
        "amount_mismatch",
        expected,
    )
    assert problem["hint"]
    assert Booking.objects.count() == 0


def test_a_pickup_inside_the_lead_time_is_an_is_error_result(client, agent):
    arguments = checkout_arguments(client, agent)
    arguments["bookingData"]["pickupDatetime"] = (timezone.localtime() + timedelta(minutes=30)).isoformat()
    result = tool_result(call(client, agent, "booking.create_checkout", arguments))
    assert (result["isError"], result["structuredContent"]["code"]) == (True, "lead_time")
    assert "earliestPickup" in result["structuredContent"]
    assert Booking.objects.count() == 0


def test_without_a_payment_provider_the_checkout_tool_says_so(client, agent, settings):
    arguments = checkout_arguments(client, agent)
    settings.PAYMENT_PROVIDER = "none"
    result = tool_result(call(client, agent, "booking.create_checkout", arguments))
    rest = client.post("/api/v1/checkout", arguments, content_type="application/json", **agent)
    assert result["isError"] is True
    assert result["structuredContent"] == rest.json()
    assert Booking.objects.count() == 0


def test_error_results_follow_the_problem_schema_of_the_openapi_document(client, agent):
    problem_schema = client.get("/openapi.json").json()["components"]["schemas"]["Problem"]
    validator = Draft202012Validator(problem_schema)
    arguments = checkout_arguments(client, agent)
    for tool, bad in [
        ("booking.create_checkout", {**arguments, "amount": 1}),
        ("booking.calculate_price", {}),
        ("booking.estimate_distance", {"from": "Hotel", "to": "Salzburg"}),
    ]:
        result = tool_result(call(client, agent, tool, bad))
        assert result["isError"] is True
        validator.validate(result["structuredContent"])


# --- rate limit -----------------------------------------------------------------------------------


def test_the_endpoint_is_rate_limited_per_token(client):
    start_of_window(client)
    limited = bearer("booking.read", rate_limit=2)
    for _ in range(2):
        response = rpc(client, limited, "ping")
        assert result_of(response) == {}
        assert response["RateLimit-Policy"] == '"default";q=2;w=60'
    refused = rpc(client, limited, "ping")
    data = error_of(refused, 429, -32013)
    assert data["code"] == "rate_limited"
    assert int(refused["Retry-After"]) >= 1
    assert result_of(rpc(client, bearer("booking.read"), "ping")) == {}  # another token counts apart


def test_the_tools_are_the_registry(client, agent):
    assert [tool.name for tool in TOOLS] == TOOL_NAMES
    assert all(tool.v1_operation.split()[1].startswith("/api/v1/") for tool in TOOLS)
