"""The tool schemas as models read them (docs/agents/clients.md, "Agent frameworks"): every optional
argument, nested ones included, allows null and is typed so; the endpoint reads null as left out; no schema
in tools/list uses oneOf; and openai-agents' strict conversion takes every tool, a strict model's call
(null for all it leaves out) then meaning what the call without them means."""

import copy
import json

import pytest
from jsonschema import Draft202012Validator

from mcp_endpoint import tools
from mcp_endpoint.schemas import TOOL_OF_OPERATION
from tests.mcp_endpoint.frameworks.model import as_strict
from tests.mcp_endpoint.mcp import AHEAD, QUOTE_TOOLS, VALID_ARGUMENTS, call, result_of, rpc, tool_result

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]

NULL = {"type": "null"}
# Arguments every tool accepts (a reference need not exist: validation is what is compared).
ARGUMENTS = {
    **VALID_ARGUMENTS,
    "booking.create_checkout": {
        "amount": 7400,
        "bookingData": {
            "from": "Hotel Sacher",
            "to": "Flughafen Wien",
            "pickupDatetime": AHEAD.isoformat(),
            "vehicleClass": "executive",
            "stops": [{"address": "Stephansdom"}],
        },
    },
    "booking.get_booking": {"reference": "CB-7K3Q9X"},
    "booking.cancel_booking": {"reference": "CB-7K3Q9X"},
    "booking.list_extras": {},
    "booking.get_quote": {"reference": "QR-ACDEFG"},
    "booking.quote_change": {"reference": "CB-7K3Q9X", "vehicleClass": "first"},
    "booking.change_booking": {"reference": "CB-7K3Q9X", "changeQuoteId": "chq_1"},
}


@pytest.fixture
def listed(client, agent) -> dict[str, dict]:
    return {tool["name"]: tool for tool in result_of(rpc(client, agent, "tools/list"))["tools"]}


def objects_in(schema: dict, path: str = ""):
    """Every object schema with properties in `schema`, with where it is."""
    if "properties" in schema:
        yield path or "(arguments)", schema
        for name, declared in schema["properties"].items():
            yield from objects_in(declared, f"{path}.{name}".lstrip("."))
    for choice in schema.get("anyOf", []):
        yield from objects_in(choice, path)
    if isinstance(schema.get("items"), dict):
        yield from objects_in(schema["items"], f"{path}[]")


def allows_null(declared: dict) -> bool:
    return NULL in declared.get("anyOf", [])


def test_every_optional_argument_allows_null_and_no_required_one_does(listed):
    checked = 0
    for name, tool in listed.items():
        for where, schema in objects_in(tool["inputSchema"]):
            required = set(schema.get("required", []))
            for argument, declared in schema["properties"].items():
                assert allows_null(declared) == (argument not in required), (name, where, argument, declared)
                choices = [choice for choice in declared.get("anyOf", [declared]) if choice != NULL]
                assert choices and all("type" in choice or "enum" in choice for choice in choices), declared
                checked += 1
    assert checked > 80  # nested arguments (bookingData, its stops, wayBack …) included


def test_no_schema_in_tools_list_uses_one_of(client, agent):
    listing = json.dumps(result_of(rpc(client, agent, "tools/list")))
    metadata = json.dumps(client.get("/api/mcp").json())
    assert "oneOf" not in listing and "oneOf" not in metadata
    assert '"anyOf"' in listing


def test_the_schemas_name_tools_where_the_rest_operation_would_be_named(client, agent, listed):
    listing = json.dumps(result_of(rpc(client, agent, "tools/list")))
    assert "/api/" not in listing and "/api/" not in json.dumps(client.get("/api/mcp").json()["tools"])
    extras = listed["booking.calculate_price"]["inputSchema"]["properties"]["extras"]
    assert "booking.list_extras lists them" in extras["description"]
    assert set(TOOL_OF_OPERATION.values()) <= set(listed)


@pytest.mark.parametrize("name", list(ARGUMENTS))
def test_an_optional_argument_sent_as_null_is_one_left_out(listed, name):
    strict = as_strict(ARGUMENTS[name], listed[name]["inputSchema"])
    assert None in strict.values() or name in ("booking.list_extras", "booking.get_quote")
    tool = tools.find(name)
    assert tool is not None
    with_nulls = tools.validated(tool, copy.deepcopy(strict))
    without = tools.validated(tool, copy.deepcopy(ARGUMENTS[name]))
    assert with_nulls.validated_data == without.validated_data


def test_a_null_inside_a_list_of_objects_is_left_out_too(listed):
    arguments = copy.deepcopy(ARGUMENTS["booking.create_checkout"])
    arguments["bookingData"]["stops"] = [{"address": "Stephansdom", "waitMinutes": None}]
    tool = tools.find("booking.create_checkout")
    assert tool is not None
    booking_data = tools.validated(tool, arguments).validated_data["bookingData"]
    assert (
        booking_data
        == tools.validated(tool, ARGUMENTS["booking.create_checkout"]).validated_data["bookingData"]
    )


def test_a_required_argument_sent_as_null_is_refused(client, agent):
    refused = tool_result(
        call(client, agent, "booking.calculate_price", {"distanceKm": None, "vehicleClass": "first"})
    )
    assert refused["isError"] is True and "distanceKm" in json.loads(refused["content"][0]["text"])["errors"]


@pytest.mark.parametrize("name", list(ARGUMENTS))
def test_openai_agents_strict_conversion_takes_every_tool_and_a_strict_call_validates(listed, name):
    strict_schema = pytest.importorskip("agents.strict_schema")
    schema = copy.deepcopy(listed[name]["inputSchema"])
    # as openai-agents converts an MCP tool with convert_schemas_to_strict (agents/mcp/util.py)
    converted = strict_schema.ensure_strict_json_schema(schema, _reject_open_objects=True)
    for where, node in objects_in(converted):
        assert set(node["required"]) == set(node["properties"]), (where, node)
        assert node["additionalProperties"] is False, where
    strict_call = as_strict(ARGUMENTS[name], converted)
    assert list(Draft202012Validator(converted).iter_errors(strict_call)) == []


@pytest.mark.parametrize("name", QUOTE_TOOLS)
def test_a_strict_models_call_is_answered_as_the_call_without_nulls(client, agent, listed, name):
    strict_call = as_strict(VALID_ARGUMENTS[name], listed[name]["inputSchema"])
    answered = tool_result(call(client, agent, name, strict_call))
    assert answered["isError"] is False, answered
    plain = tool_result(call(client, agent, name, VALID_ARGUMENTS[name]))["structuredContent"]
    if name == "booking.check_availability":  # counted from now: the moments differ
        answered["structuredContent"].pop("bookingDatetime")
        plain.pop("bookingDatetime")
    assert answered["structuredContent"] == plain
