"""Talking to the agent endpoint /api/mcp from the test client: one JSON-RPC message at a time, and what a
result, an error or a tool result must look like; shared by the tests in tests/mcp_endpoint."""

import json
from datetime import timedelta

from django.utils import timezone
from jsonschema import Draft202012Validator, FormatChecker

from quote_requests.models import QuoteRequest

MCP = "/api/mcp"
TOOL_NAMES = [
    "booking.estimate_distance",
    "booking.check_availability",
    "booking.calculate_price",
    "places.autocomplete",
    "booking.create_checkout",
    "booking.get_booking",
    "booking.list_bookings",
    "booking.cancel_booking",
    "booking.list_extras",
    "booking.request_quote",
    "booking.get_quote",
    "booking.quote_change",
    "booking.change_booking",
]
QUOTE_TOOLS = TOOL_NAMES[:4]  # read tools that need no booking: VALID_ARGUMENTS holds their arguments
READ_TOOLS = [
    *QUOTE_TOOLS,
    "booking.get_booking",
    "booking.list_bookings",
    "booking.list_extras",
    "booking.get_quote",
]
WRITE_TOOLS = [
    "booking.create_checkout",
    "booking.cancel_booking",
    "booking.request_quote",
    "booking.quote_change",
    "booking.change_booking",
]

# A pickup weeks ahead: within the 365 days bookings (and quote requests) are taken for.
AHEAD = (timezone.localtime() + timedelta(days=60)).replace(hour=10, minute=0, second=0, microsecond=0)

VALID_ARGUMENTS = {
    "booking.estimate_distance": {"from": "Hotel Sacher", "to": "Flughafen Wien"},
    "booking.check_availability": {"pickupDatetime": "2030-05-02T10:00:00+02:00"},
    "booking.calculate_price": {"distanceKm": 20, "vehicleClass": "first"},
    "places.autocomplete": {"input": "Sacher"},
    "booking.list_bookings": {"when": "all"},  # the token's bookings: none yet, an empty page
    "booking.request_quote": {
        "from": "Hotel Sacher",
        "to": "Salzburg Hauptbahnhof",
        "pickupDatetime": AHEAD.isoformat(),
        "passengers": 14,
        "details": "A group of 14 with luggage: two vans?",
        "name": "Anna Berger",
        "email": "anna@example.com",
    },
}


def asked_by(token) -> QuoteRequest:
    """A quote request the token made, as booking.request_quote stores it."""
    return QuoteRequest.objects.create(
        reference="QR-ACDEFG",
        origin="Hotel Sacher",
        pickup_at=AHEAD,
        passengers=14,
        name="Anna Berger",
        email="anna@example.com",
        channel="agent",
        api_token=token,
    )


def post(client, body, *, path=MCP, **headers):
    payload = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.generic("POST", path, payload, content_type="application/json", **headers)


def rpc(client, headers, method, params=None, *, request_id=1, path=MCP, **extra):
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return post(client, message, path=path, **headers, **extra)


def call(client, headers, name, arguments, request_id=7):
    return rpc(client, headers, "tools/call", {"name": name, "arguments": arguments}, request_id=request_id)


def result_of(response) -> dict:
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"jsonrpc", "id", "result"}, body
    return body["result"]


def error_of(response, status: int, code: int, request_id=None) -> dict:
    """A JSON-RPC error at an HTTP status; returns error.data (or {})."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] == request_id, body
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    return body["error"].get("data", {})


def tool_result(response) -> dict:
    result = result_of(response)
    assert result["content"][0]["type"] == "text" and len(result["content"]) == 1
    if result["isError"]:  # the problem as text only: it would break the tool's outputSchema
        assert "structuredContent" not in result, result
    else:
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    return result


def tool_problem(response) -> dict:
    """The problem an isError result carries in its text."""
    result = tool_result(response)
    assert result["isError"] is True, result
    return json.loads(result["content"][0]["text"])


def pickup(days: int = 3, hour: int = 10) -> str:
    day = timezone.localtime() + timedelta(days=days)
    return day.replace(hour=hour, minute=0, second=0, microsecond=0).isoformat()


def checkout_arguments(client, agent, **ride) -> dict:
    """What an agent does: estimate, price, then book with the server's amount."""
    booking_data = {
        "from": "Hotel Sacher",
        "to": "Flughafen Wien",
        "pickupDatetime": pickup(),
        "vehicleClass": "executive",
        "name": "Anna Berger",
        "email": "anna@example.com",
        **ride,
    }
    route = tool_result(
        call(
            client,
            agent,
            "booking.estimate_distance",
            {"from": booking_data["from"], "to": booking_data["to"]},
        )
    )["structuredContent"]
    price = tool_result(
        call(
            client,
            agent,
            "booking.calculate_price",
            {
                "distanceKm": route["distance"],
                "inZoneA": route["inZoneA"],
                "vehicleClass": booking_data["vehicleClass"],
                **{key: ride[key] for key in ("passengers", "luggage", "extras") if key in ride},
            },
        )
    )["structuredContent"]
    return {"amount": round(price["priceEur"] * 100), "bookingData": booking_data}


def output_validator(client, agent, tool: str) -> Draft202012Validator:
    listed = {item["name"]: item for item in result_of(rpc(client, agent, "tools/list"))["tools"]}
    return Draft202012Validator(listed[tool]["outputSchema"], format_checker=FormatChecker())
