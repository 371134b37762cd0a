"""No input, however malformed, is a 5xx: arbitrary strings in every query parameter and arbitrary JSON
(or junk) in every POST body of the OpenAPI document, plus arbitrary tool arguments on /api/mcp. Runs on
whatever database the suite runs on, so CI fuzzes PostgreSQL too (NUL characters, huge numbers, deep
objects are what it refuses that SQLite does not)."""

import json

import pytest
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_endpoint.tools import TOOLS

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]

FUZZ = settings(
    max_examples=60,
    derandomize=True,  # CI sees the same inputs every run; a failure names its example
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Text a URL can carry: anything but lone surrogates (which cannot be encoded), NUL included.
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
NUMBERS = st.integers(min_value=-(10**30), max_value=10**30) | st.floats(
    allow_nan=False, allow_infinity=False
)
JSON = st.recursive(
    st.none() | st.booleans() | NUMBERS | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=12,
)


def operations() -> dict[str, list[tuple[str, list[str]]]]:
    """method → [(path, parameter names)] of every documented operation under /api."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found: dict[str, list] = {"get": [], "post": []}
    for path, item in schema["paths"].items():
        for method in found.keys() & item.keys():
            if path.startswith("/api"):
                found[method].append(
                    (path, [parameter["name"] for parameter in item[method].get("parameters", [])])
                )
    return found


OPERATIONS = operations()


@pytest.fixture(autouse=True)
def no_rate_limit(settings):
    settings.API_RATE_LIMIT_REQUESTS = 10**9


def assert_answered(response) -> None:
    assert response.status_code < 500, response.content[:500]


@pytest.mark.parametrize(("path", "names"), OPERATIONS["get"], ids=[path for path, _ in OPERATIONS["get"]])
@FUZZ
@given(data=st.data())
def test_no_query_is_a_5xx(client, path, names, data):
    query = data.draw(st.fixed_dictionaries({}, optional={name: TEXT for name in names}))
    assert_answered(client.get(path, query))


POST_PATHS = [path for path, _ in OPERATIONS["post"] if path != "/api/mcp"]


@pytest.mark.parametrize("path", POST_PATHS)
@FUZZ
@given(body=JSON | st.dictionaries(st.sampled_from(["amount", "bookingData"]), JSON))
def test_no_json_body_is_a_5xx(client, writer, path, body):
    assert_answered(client.post(path, json.dumps(body), content_type="application/json", **writer))


# JSON that json.dumps never writes but a client may send: numbers too large for a float, escaped NULs.
LITERALS = st.sampled_from(
    ["1e400", "-1e400", "1E999", "123456789e999", '"\\u0000"', '"a\\u0000b"', '"\\ud800"', "1" * 400]
)
BOOKING_FIELDS = st.sampled_from(
    [
        "from",
        "to",
        "name",
        "email",
        "phone",
        "notes",
        "flightNumber",
        "flightData",
        "distanceKm",
        "priceEur",
        "durationHours",
        "tourName",
        "pickupDatetime",
        "vehicleClass",
    ]
)


@pytest.mark.parametrize("path", POST_PATHS)
@FUZZ
@given(field=BOOKING_FIELDS, literal=LITERALS, nested=st.booleans())
def test_no_raw_json_literal_is_a_5xx(client, writer, path, field, literal, nested):
    value = f'{{"x": {literal}}}' if nested else literal
    body = f'{{"amount": 7400, "bookingData": {{"from": "Hotel Sacher", "to": "Flughafen Wien", "{field}": {value}}}}}'
    assert_answered(client.post(path, body, content_type="application/json", **writer))


@pytest.mark.parametrize("path", POST_PATHS)
@FUZZ
@given(body=st.binary(max_size=200))
def test_no_byte_body_is_a_5xx(client, writer, path, body):
    assert_answered(client.post(path, body, content_type="application/json", **writer))


@FUZZ
@given(name=st.sampled_from([tool.name for tool in TOOLS]), arguments=JSON)
def test_no_tool_arguments_are_a_5xx(client, agent, name, arguments):
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    response = client.post("/api/mcp", json.dumps(message), content_type="application/json", **agent)
    assert_answered(response)
    if response.status_code == 200 and "result" in response.json():
        assert '"code":"internal_error"' not in response.json()["result"]["content"][0]["text"]
