"""The tools of /api/mcp (docs/decisions.md §10; booking.create_checkout has test_checkout_tool.py): their
input schemas are the declarations of their /api/v1 operations, their results are the /api/v1 responses,
and their refusals are isError results carrying the /api/v1 problem."""

import pytest
import responses
import time_machine
from django.utils import timezone
from jsonschema import Draft202012Validator

from apikit.problems import PROBLEM_KINDS
from booking.models import Booking
from mcp_endpoint.tools import TOOLS
from tests.mcp_endpoint.mcp import (
    TOOL_NAMES,
    VALID_ARGUMENTS,
    call,
    checkout_arguments,
    output_validator,
    result_of,
    rpc,
    tool_problem,
    tool_result,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]  # one test opens a checkout


@pytest.fixture
def still_clock():
    """Two calls compared whole must see one moment: an earliest pickup or an arrival counts from now."""
    with time_machine.travel(timezone.now(), tick=False):
        yield


# --- the registry and the schemas -----------------------------------------------------------------


def test_the_tools_are_the_registry(client, agent):
    assert [tool.name for tool in TOOLS] == TOOL_NAMES
    assert all(tool.v1_operation.split()[1].startswith("/api/v1/") for tool in TOOLS)


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
    operation = client.get("/openapi.json").json()["paths"][path]["get"]
    parameters = [parameter for parameter in operation["parameters"] if parameter["in"] == "query"]
    assert set(schema["properties"]) == {parameter["name"] for parameter in parameters}
    assert set(schema["required"]) == {
        parameter["name"] for parameter in parameters if parameter.get("required")
    }
    for parameter in parameters:
        declared = schema["properties"][parameter["name"]]
        if parameter["name"] not in schema["required"]:  # also null, which is the same as left out
            *choices, null = declared["anyOf"]
            assert null == {"type": "null"} and len(choices) == 1, declared
            declared = choices[0]
        assert declared.get("type") == parameter["schema"].get("type"), parameter["name"]
        assert declared.get("enum") == parameter["schema"].get("enum"), parameter["name"]


# --- results are the /api/v1 responses ------------------------------------------------------------


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
@pytest.mark.usefixtures("still_clock")
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


@pytest.mark.usefixtures("still_clock")
def test_underscore_aliases_call_the_same_tools(client, agent):
    for name, arguments in VALID_ARGUMENTS.items():
        dotted = tool_result(call(client, agent, name, arguments))
        aliased = tool_result(call(client, agent, name.replace(".", "_"), arguments))
        assert aliased["structuredContent"] == dotted["structuredContent"], name


def test_tools_call_accepts_meta(client, agent):
    params = {
        "name": "booking.calculate_price",
        "arguments": VALID_ARGUMENTS["booking.calculate_price"],
        "_meta": {"progressToken": "t1"},
    }
    assert tool_result(rpc(client, agent, "tools/call", params))["isError"] is False


# --- isError results ------------------------------------------------------------------------------


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
    problem = tool_problem(call(client, agent, tool, arguments))
    v1 = client.get(path, arguments).json()
    hint, rest_hint = problem.pop("hint"), v1.pop("hint")
    assert problem == v1
    assert hint == (PROBLEM_KINDS[code].tool_hint or rest_hint)  # in a model's words where REST's name paths
    assert (problem["code"], problem["status"]) == (code, v1["status"])
    assert problem["detail"] and hint


def test_an_upstream_outage_is_an_is_error_result(client, agent, settings):
    settings.GOOGLE_MAPS_API_KEY = "test-key"
    settings.GOOGLE_ROUTES_URL = "https://routes.test"
    with responses.RequestsMock() as google:
        google.post("https://routes.test/directions/v2:computeRoutes", status=503)
        google.post("https://routes.test/directions/v2:computeRoutes", status=503)
        response = call(
            client, agent, "booking.estimate_distance", VALID_ARGUMENTS["booking.estimate_distance"]
        )
    assert tool_problem(response)["code"] == "upstream_unavailable"
    assert b"test-key" not in response.content


def test_missing_and_unknown_arguments_are_named(client, agent):
    errors = tool_problem(call(client, agent, "booking.calculate_price", {"distancekm": 10}))["errors"]
    assert set(errors) == {"distanceKm", "vehicleClass", "distancekm"}
    assert errors["distancekm"] == ["This tool does not take this argument."]


def test_arguments_may_be_omitted_and_are_then_validated(client, agent):
    problem = tool_problem(rpc(client, agent, "tools/call", {"name": "booking.check_availability"}))
    assert set(problem["errors"]) == {"pickupDatetime"}


def test_error_results_follow_the_problem_schema_of_the_openapi_document(client, agent):
    problem_schema = client.get("/openapi.json").json()["components"]["schemas"]["Problem"]
    validator = Draft202012Validator(problem_schema)
    arguments = checkout_arguments(client, agent)
    for tool, bad in [
        ("booking.create_checkout", {**arguments, "amount": 1}),
        ("booking.calculate_price", {}),
        ("booking.estimate_distance", {"from": "Hotel", "to": "Salzburg"}),
    ]:
        validator.validate(tool_problem(call(client, agent, tool, bad)))


def test_fifty_thousand_unknown_arguments_get_an_answer_of_a_few_kilobytes(client, agent):
    arguments = {**VALID_ARGUMENTS["booking.calculate_price"], **{f"extra{n}": n for n in range(50_000)}}
    arguments["x" * 1_000_000] = 1
    response = call(client, agent, "booking.calculate_price", arguments)
    assert len(response.content) < 10_000
    errors = tool_problem(response)["errors"]
    assert len(errors) == 21  # 20 fields and the note on the rest
    assert errors["request"] == ["… and 49981 more fields with errors."]
    assert all(len(name) <= 130 for name in errors)


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("booking.calculate_price", {"distanceKm": "20", "vehicleClass": "executive"}, "distanceKm"),
        ("booking.create_checkout", {"amount": "7400", "bookingData": {}}, "amount"),
    ],
)
def test_a_number_written_as_a_string_is_refused_by_every_tool_alike(client, agent, tool, arguments, field):
    # JSON arguments are typed: "20" is text, as the inputSchema's "type": "number" says (REST query
    # strings are text by nature and are read as numbers there).
    problem = tool_problem(call(client, agent, tool, arguments))
    assert problem["code"] == "invalid_request" and field in problem["errors"]


# --- null for an optional argument (mcp-use sends null for each one it was not given) -----------------------


def _with_nulls(schema: dict, arguments: dict) -> dict:
    """What mcp-use sends: every optional property it was not given as null, nested objects included."""
    filled = dict(arguments)
    for name, declared in schema["properties"].items():
        if name in filled and declared.get("type") == "object" and isinstance(filled[name], dict):
            filled[name] = _with_nulls(declared, filled[name])
        elif name not in filled and name not in schema.get("required", []):
            filled[name] = None
    return filled


@pytest.mark.parametrize("tool", sorted(VALID_ARGUMENTS))
@pytest.mark.usefixtures("still_clock")
def test_null_for_an_optional_argument_is_the_same_as_leaving_it_out(client, agent, tool):
    listed = {item["name"]: item for item in result_of(rpc(client, agent, "tools/list"))["tools"]}
    schema = listed[tool]["inputSchema"]
    assert "null is the same as leaving one out" in schema["description"]
    with_nulls = _with_nulls(schema, VALID_ARGUMENTS[tool])
    assert None in with_nulls.values()  # the tool has optional arguments the call leaves null
    plain = tool_result(call(client, agent, tool, VALID_ARGUMENTS[tool]))
    nulled = tool_result(call(client, agent, tool, with_nulls))
    assert nulled["isError"] is False, nulled
    # a quote request asked again with nulls is the same request: its retry, under the same reference
    assert nulled["structuredContent"] == plain["structuredContent"]


def test_a_checkout_with_every_optional_argument_null_books(client, agent):
    listed = {item["name"]: item for item in result_of(rpc(client, agent, "tools/list"))["tools"]}
    arguments = _with_nulls(
        listed["booking.create_checkout"]["inputSchema"], checkout_arguments(client, agent)
    )
    assert None in arguments["bookingData"].values()
    result = tool_result(call(client, agent, "booking.create_checkout", arguments))
    assert result["isError"] is False, result
    booking = Booking.objects.get(reference=result["structuredContent"]["reference"])
    assert booking.flight_number == "" and booking.phone == ""  # null stored as not given, not "None"


def test_null_for_a_required_argument_is_still_refused_and_nothing_is_stored(client, agent):
    problem = tool_problem(call(client, agent, "places.autocomplete", {"input": None}))
    assert "input" in problem["errors"]
    arguments = checkout_arguments(client, agent)
    arguments["bookingData"]["vehicleClass"] = None
    problem = tool_problem(call(client, agent, "booking.create_checkout", arguments))
    assert "bookingData.vehicleClass" in problem["errors"]
    assert not Booking.objects.exists()
