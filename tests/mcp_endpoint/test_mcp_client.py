"""The official MCP Python SDK (`mcp`) against a real gunicorn serving /api/mcp: what an agent developer's
client sees, in both of its connect modes ("auto" probes server/discover first and falls back to
initialize; "legacy" initializes straight away)."""

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from datetime import time as clock
from zoneinfo import ZoneInfo

import httpx2
import pytest
import requests
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.mcp_endpoint.live import LiveServer, booking_count
from tests.mcp_endpoint.mcp import TOOL_NAMES

MODES = pytest.mark.parametrize("mode", ["auto", "legacy"])
VIENNA = ZoneInfo("Europe/Vienna")
# Fixed times, so that the v1 answer and the tool's answer cannot differ by a tick of the clock.
PICKUP = datetime.combine(datetime.now(VIENNA).date() + timedelta(days=3), clock(10), tzinfo=VIENNA)
BOOKED_AT = PICKUP - timedelta(days=1)
REQUIRED_ARGUMENTS = {
    "booking.estimate_distance": ["from", "to"],
    "booking.check_availability": ["pickupDatetime"],
    "booking.calculate_price": ["distanceKm", "vehicleClass"],
    "places.autocomplete": ["input"],
    "booking.create_checkout": ["amount", "bookingData"],
    "booking.get_booking": ["reference"],
    "booking.list_bookings": [],
    "booking.cancel_booking": ["reference"],
    "booking.list_extras": [],
    "booking.request_quote": ["from", "pickupDatetime", "name"],  # `email` too, unless the token acts for one
    "booking.get_quote": ["reference"],
    "booking.quote_change": ["reference"],
    "booking.change_booking": ["reference", "changeQuoteId"],
}
UNAUTHORIZED, INSUFFICIENT_SCOPE = -32010, -32011  # agents.jsonrpc's own codes


@asynccontextmanager
async def connected(server: LiveServer, mode: str, token: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    # The transport leaves a client it was given open: close it ourselves.
    async with httpx2.AsyncClient(headers=headers) as http:
        transport = streamable_http_client(f"{server.base}/api/mcp", http_client=http)
        async with Client(transport, mode=mode) as client:
            yield client


def run(server: LiveServer, mode: str, token: str | None, scenario: Callable[[Client], Awaitable]):
    """Connect, play `scenario` against the client and return what it returns (no pytest-asyncio here)."""

    async def session():
        async with connected(server, mode, token) as client:
            return await scenario(client)

    return asyncio.run(session())


def v1_get(server: LiveServer, path: str, **params) -> dict:
    response = requests.get(f"{server.base}{path}", params=params, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def leaves(group: BaseExceptionGroup) -> list[BaseException]:
    return [
        leaf
        for error in group.exceptions
        for leaf in (leaves(error) if isinstance(error, BaseExceptionGroup) else [error])
    ]


@MODES
def test_the_client_connects_and_sees_the_server_and_its_tools(server, mode):
    async def scenario(client: Client):
        return client.session, await client.list_tools()

    session, listing = run(server, mode, server.read_token, scenario)

    # "auto" probes server/discover and speaks 2026-07-28 without a handshake; "legacy" initializes.
    if mode == "auto":
        assert session.initialize_result is None and session.discover_result is not None
        assert session.protocol_version == "2026-07-28"
        assert "2025-11-25" in session.discover_result.supported_versions
    else:
        assert session.discover_result is None and session.initialize_result is not None
        assert session.protocol_version == session.initialize_result.protocol_version == "2025-11-25"
    assert (session.server_info.name, session.server_info.version) == ("chauffeur-booking", "0.2.0")
    assert session.instructions and "booking.create_checkout" in session.instructions
    assert session.server_capabilities.tools is not None

    tools = {tool.name: tool for tool in listing.tools}
    assert len(listing.tools) == len(TOOL_NAMES) and set(tools) == set(TOOL_NAMES)
    for name, tool in tools.items():
        assert tool.input_schema["type"] == "object", name
        assert sorted(tool.input_schema.get("required", [])) == sorted(REQUIRED_ARGUMENTS[name])
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", name
        assert tool.output_schema["properties"], name


READ_CALLS = [
    pytest.param(
        "booking.estimate_distance",
        "/api/v1/distance",
        {"from": "Vienna Airport", "to": "Stephansplatz", "pickupDatetime": PICKUP.isoformat()},
        id="estimate_distance",
    ),
    pytest.param(
        "booking.check_availability",
        "/api/v1/availability",
        {"pickupDatetime": PICKUP.isoformat(), "bookingDatetime": BOOKED_AT.isoformat()},
        id="check_availability",
    ),
    pytest.param(
        "booking.calculate_price",
        "/api/v1/price",
        {"distanceKm": 48.3, "vehicleClass": "first", "inZoneA": False},
        id="calculate_price",
    ),
    pytest.param("places.autocomplete", "/api/v1/places", {"input": "Hotel Sacher"}, id="autocomplete"),
]


@MODES
@pytest.mark.parametrize(("tool", "v1_path", "arguments"), READ_CALLS)
def test_a_read_tool_answers_what_its_v1_operation_answers(server, mode, tool, v1_path, arguments):
    # call_tool also validates the structured content against the listed outputSchema (SDK behaviour).
    result = run(server, mode, server.read_token, lambda client: client.call_tool(tool, arguments))

    assert result.is_error is False, result.structured_content
    expected = v1_get(server, v1_path, **arguments)
    assert result.structured_content == expected
    assert expected  # not two empty answers agreeing
    if tool == "places.autocomplete":
        assert expected["suggestions"], "the offline gazetteer should know the Hotel Sacher"


@MODES
def test_an_invalid_argument_is_a_tool_error_naming_the_field(server, mode):
    arguments = {"distanceKm": "far", "vehicleClass": "executive"}
    result = run(
        server, mode, server.read_token, lambda client: client.call_tool("booking.calculate_price", arguments)
    )

    # The problem travels as the text content: a structured copy would break the tool's outputSchema,
    # which the SDK checks on every result.
    assert result.is_error is True and result.structured_content is None
    problem = json.loads(result.content[0].text)
    assert problem["code"] == "invalid_request"
    assert problem["status"] == 400
    assert list(problem["errors"]) == ["distanceKm"]


@MODES
def test_a_ride_is_estimated_priced_and_booked(server, mode):
    ride = {"from": "Vienna Airport", "to": "Hotel Sacher Wien"}

    async def scenario(client: Client):
        route = await client.call_tool("booking.estimate_distance", ride)
        assert route.is_error is False, route.structured_content
        distance, in_zone_a = route.structured_content["distance"], route.structured_content["inZoneA"]
        price = await client.call_tool(
            "booking.calculate_price", {"distanceKm": distance, "vehicleClass": "first", "inZoneA": in_zone_a}
        )
        assert price.is_error is False, price.structured_content
        booking_data = {
            **ride,
            "pickupDatetime": PICKUP.isoformat(),
            "vehicleClass": "first",
            "name": "Ada Traveller",
            "email": f"ada.{mode}@example.com",  # not a retry of the other mode's booking (replayed 10 min)
        }
        amount = round(price.structured_content["priceEur"] * 100)
        checkout = await client.call_tool(
            "booking.create_checkout", {"amount": amount, "bookingData": booking_data}
        )
        # The SDK checks each structured result against the tool's outputSchema.
        reference = {"reference": checkout.structured_content["reference"]}
        looked_up = await client.call_tool("booking.get_booking", reference)
        cancelled = await client.call_tool("booking.cancel_booking", reference)
        return amount, checkout, looked_up, cancelled

    amount, checkout, looked_up, cancelled = run(server, mode, server.write_token, scenario)
    assert looked_up.is_error is False and looked_up.structured_content["status"] == "pending_payment"
    assert cancelled.is_error is False and cancelled.structured_content["status"] == "cancelled"

    assert checkout.is_error is False, checkout.structured_content
    started = checkout.structured_content
    assert started["reference"].startswith("CB-")
    assert started["status"] == "pending_payment"
    assert started["url"] == f"{server.base}/booking/sandbox/{started['sessionId']}"
    stored = v1_get(server, "/api/get-session-data", session_id=started["sessionId"])["bookingData"]
    assert (stored["reference"], stored["status"]) == (started["reference"], "cancelled")
    assert (stored["amountCents"], stored["from"], stored["to"]) == (
        amount,
        "Vienna Airport",
        "Hotel Sacher Wien",
    )
    assert stored["pickupDatetime"] == PICKUP.isoformat()


def test_a_ride_with_a_stop_and_child_seats_is_estimated_priced_and_booked(server):
    ride = {"from": "Hotel Sacher Wien", "to": "Vienna Airport"}

    async def scenario(client: Client):
        route = await client.call_tool("booking.estimate_distance", {**ride, "stops": ["Stephansdom"]})
        assert route.is_error is False, route.structured_content
        trip = {"passengers": 3, "extras": ["child-seat:2"]}
        price = await client.call_tool(
            "booking.calculate_price",
            {
                "distanceKm": route.structured_content["distance"],
                "vehicleClass": "executive",
                "stopWaits": [20],
                **trip,
            },
        )
        assert price.is_error is False, price.structured_content
        booking_data = {
            **ride,
            **trip,
            "stops": [{"address": "Stephansdom", "waitMinutes": 20}],
            "pickupDatetime": PICKUP.isoformat(),
            "vehicleClass": "executive",
            "name": "Ada Traveller",
            "email": "ada.stops@example.com",
        }
        amount = round(price.structured_content["priceEur"] * 100)
        checkout = await client.call_tool(
            "booking.create_checkout", {"amount": amount, "bookingData": booking_data}
        )
        assert checkout.is_error is False, checkout.structured_content
        # the SDK checks the answer against the tool's outputSchema
        return price, await client.call_tool(
            "booking.get_booking", {"reference": checkout.structured_content["reference"]}
        )

    price, looked_up = run(server, "auto", server.write_token, scenario)
    lines = {line["code"]: line for line in price.structured_content["lines"]}
    assert (lines["stop"]["label"], lines["extra"]["label"]) == ("Stop 1, waiting 20 min", "Child seat × 2")
    assert looked_up.is_error is False, looked_up.structured_content
    state = looked_up.structured_content
    assert state["stops"] == [{"address": "Stephansdom", "waitMinutes": 20}]
    assert [(extra["code"], extra["quantity"]) for extra in state["extras"]] == [("child-seat", 2)]
    assert (state["passengers"], state["priceEur"]) == (3, price.structured_content["priceEur"])


def test_a_return_trip_with_a_child_seat_is_priced_and_booked_as_two_rides(server):
    way_back_pickup = PICKUP + timedelta(days=2)

    async def scenario(client: Client):
        prices = []
        for ride in (
            {"from": "Hotel Sacher Wien", "to": "Vienna Airport"},
            {"from": "Vienna Airport", "to": "Hotel Sacher Wien"},
        ):
            route = await client.call_tool("booking.estimate_distance", ride)
            price = await client.call_tool(
                "booking.calculate_price",
                {
                    "distanceKm": route.structured_content["distance"],
                    "vehicleClass": "executive",
                    "passengers": 2,
                    "extras": ["child-seat"],
                },
            )
            assert price.is_error is False, price.structured_content
            prices.append(round(price.structured_content["priceEur"] * 100))
        booking_data = {
            "from": "Hotel Sacher Wien",
            "to": "Vienna Airport",
            "pickupDatetime": PICKUP.isoformat(),
            "vehicleClass": "executive",
            "passengers": 2,
            "extras": ["child-seat"],
            "name": "Ada Traveller",
            "email": "ada.return@example.com",
            "wayBack": {"pickupDatetime": way_back_pickup.isoformat(), "flightNumber": "OS 88"},
        }
        checkout = await client.call_tool(
            "booking.create_checkout", {"amount": sum(prices), "bookingData": booking_data}
        )
        assert checkout.is_error is False, checkout.structured_content
        back = checkout.structured_content["wayBack"]
        # the SDK checks each answer against the tool's outputSchema
        return prices, back, await client.call_tool("booking.get_booking", {"reference": back["reference"]})

    prices, back, looked_up = run(server, "auto", server.write_token, scenario)
    assert back["amount"] == prices[1]
    state = looked_up.structured_content
    assert (state["from"], state["to"], state["pickupDatetime"]) == (
        "Vienna Airport",
        "Hotel Sacher Wien",
        way_back_pickup.isoformat(),
    )
    assert [(extra["code"], extra["quantity"]) for extra in state["extras"]] == [("child-seat", 1)]
    assert state["returnTrip"]["wayBack"] == back["reference"]


@MODES
def test_a_read_only_token_cannot_book(server, mode):
    checkout = {
        "amount": 7400,
        "bookingData": {
            "from": "Vienna Airport",
            "to": "Stephansplatz",
            "pickupDatetime": PICKUP.isoformat(),
            "vehicleClass": "executive",
        },
    }
    before = booking_count(server)

    async def scenario(client: Client):
        with pytest.raises(MCPError) as refused:
            await client.call_tool("booking.create_checkout", checkout)
        return refused.value

    # The refusal is a JSON-RPC error (HTTP 403), which the SDK raises from call_tool.
    refusal = run(server, mode, server.read_token, scenario)
    assert refusal.code == INSUFFICIENT_SCOPE
    assert refusal.data["code"] == "insufficient_scope"
    assert refusal.data["requiredScope"] == "booking.write"
    assert booking_count(server) == before


@MODES
def test_without_a_token_the_client_cannot_connect(server, mode):
    async def scenario(client: Client):
        raise AssertionError("connected without a token")

    # The handshake's MCPError escapes the transport's task groups, so it arrives inside exception groups.
    with pytest.RaisesGroup(MCPError, flatten_subgroups=True) as refused:
        run(server, mode, None, scenario)

    (error,) = leaves(refused.value)
    assert error.code == UNAUTHORIZED
    assert error.message == "Every message needs a bearer token (Authorization: Bearer cbt_…)."
    assert error.data["code"] == "unauthorized"


def test_a_chunked_message_is_read_whole(server):
    # Agent hosts may stream a request body (Transfer-Encoding: chunked) instead of sending its length.
    message = b'{"jsonrpc": "2.0", "id": 5, "method": "ping"}'
    response = requests.post(
        f"{server.base}/api/mcp",
        data=(message[i : i + 7] for i in range(0, len(message), 7)),  # a generator: requests chunks it
        headers={"Authorization": f"Bearer {server.read_token}", "Content-Type": "application/json"},
        timeout=10,
    )
    assert response.request.headers.get("Transfer-Encoding") == "chunked"
    assert response.json() == {"jsonrpc": "2.0", "id": 5, "result": {}}
