"""The MCP methods the agent endpoint speaks (docs/decisions.md §10): initialize, ping, tools/list and
tools/call, over the JSON-RPC messages of `agents.jsonrpc`. HTTP concerns (tokens, headers, status codes
of the transport) stay in the view."""

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpResponse

from access.authentication import InsufficientScope, require_scope
from access.models import ApiToken
from agents import jsonrpc, tools
from agents.jsonrpc import RpcError
from chauffeur.api.problems import Problem, classify, problem_body

# Newest first. 2024-11-05 predates Streamable HTTP; a client asking for a version not listed here is
# offered the newest and decides itself (the MCP lifecycle's negotiation).
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
SERVER_NAME = "chauffeur-booking"
SERVER_TITLE = "Vienna chauffeur booking"
SERVER_VERSION = "0.2.0"  # the agent endpoint's own version (section 9.5), not the REST API's
INSTRUCTIONS = (
    "Books chauffeur rides in and around Vienna. places.autocomplete turns what a traveller types into "
    "addresses. To quote: booking.estimate_distance (from, to), then "
    "booking.calculate_price with its distance as distanceKm and its inZoneA, and "
    "booking.check_availability for the pickup time. To book: booking.create_checkout with amount = "
    "priceEur x 100 (EUR cents) and bookingData (from, to, pickupDatetime, vehicleClass, plus the "
    "traveller's name, email and phone), then give the traveller the returned url: the ride is paid "
    "there. Date-times without an offset are Vienna local time. A tool result with isError carries "
    "code, detail and hint: follow the hint."
)


@dataclass(frozen=True)
class Caller:
    token: ApiToken
    underscore_names: bool = False  # list tools as booking_estimate_distance …


def answer(message: jsonrpc.Message, caller: Caller) -> dict:
    """The result of one request; an RpcError when the request itself is refused."""
    method = METHODS.get(message.method)
    if method is None:
        raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {message.method}.")
    return method(message.params, caller)


def _initialize(params: dict, caller: Caller) -> dict:
    requested = params.get("protocolVersion")
    if not isinstance(requested, str):
        raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: initialize needs `protocolVersion`.")
    return {
        "protocolVersion": requested if requested in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": SERVER_NAME, "title": SERVER_TITLE, "version": SERVER_VERSION},
        "instructions": INSTRUCTIONS,
    }


def _ping(params: dict, caller: Caller) -> dict:
    return {}


def _list_tools(params: dict, caller: Caller) -> dict:
    return {"tools": [tool.listing(underscore=caller.underscore_names) for tool in tools.TOOLS]}


def _call_tool(params: dict, caller: Caller) -> dict:
    name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(name, str):
        raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: tools/call needs the tool's `name`.")
    tool = tools.find(name)
    if tool is None:
        known = ", ".join(tool.name for tool in tools.TOOLS)
        raise RpcError(jsonrpc.INVALID_PARAMS, f"Unknown tool: {name}. The tools are {known}.")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: `arguments` must be an object.")
    try:
        require_scope(caller.token, tool.scope)
    except InsufficientScope as refusal:
        raise problem_error(classify(refusal), requiredScope=tool.scope) from None
    return tools.call(tool, arguments, caller=f"token:{caller.token.pk}")


METHODS: dict[str, Callable[[dict, Caller], dict]] = {
    "initialize": _initialize,
    "ping": _ping,
    "tools/list": _list_tools,
    "tools/call": _call_tool,
}


def problem_error(problem: Problem, **data) -> RpcError:
    """A refusal the REST API would answer with a problem (401, 403, 429 …), as a JSON-RPC error with
    the same HTTP status and headers and the problem's members in `error.data`."""
    return RpcError(
        jsonrpc.PROBLEM_CODES.get(problem.code, jsonrpc.INVALID_REQUEST),
        problem.detail,
        status=problem.http_status,
        data={**problem_body(problem), **data},
        headers=problem.headers,
    )


def problem_reply(problem: Problem) -> HttpResponse:
    """How the endpoint answers a problem raised before it runs (the rate limiter's 429, a refused Host)."""
    return problem_error(problem).reply()


def metadata(*, underscore_names: bool = False) -> dict:
    """GET /api/mcp (section 2.8): what an agent developer needs before the first call."""
    return {
        "protocol": "MCP (Model Context Protocol) over Streamable HTTP: JSON-RPC 2.0 messages, POST",
        "server": SERVER_NAME,
        "version": SERVER_VERSION,
        "protocolVersions": list(PROTOCOL_VERSIONS),
        "authentication": "Authorization: Bearer <token> on every POST; tokens are issued by the operator",
        "tools": [
            {
                "name": listing["name"],
                "title": listing["title"],
                "description": listing["description"],
                "inputSchema": listing["inputSchema"],
                "outputSchema": listing["outputSchema"],
                "requiredScope": tool.scope,
            }
            for tool in tools.TOOLS
            for listing in [tool.listing(underscore=underscore_names)]
        ],
    }
