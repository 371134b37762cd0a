"""The MCP methods the agent endpoint speaks (docs/decisions.md §10), by revision: initialize, ping,
tools/list and tools/call for the 2025 revisions; server/discover, tools/list and tools/call for
2026-07-28, whose results also carry `resultType` and the server's identity. HTTP concerns (tokens,
headers, status codes of the transport) stay in the view."""

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpResponse

from access.authentication import InsufficientScope, require_scope
from access.models import ApiToken
from access.protected_resources import MCP_RESOURCE
from apikit.problems import Problem, classify, clip, problem_body
from mcp_endpoint import jsonrpc, revisions, tools
from mcp_endpoint.jsonrpc import RpcError
from mcp_endpoint.revisions import LEGACY_VERSIONS, SERVER_INFO_KEY, SUPPORTED_VERSIONS, Revision

SERVER_NAME = "chauffeur-booking"
SERVER_TITLE = "Vienna chauffeur booking"
SERVER_VERSION = "0.2.0"  # the agent endpoint's own version (section 9.5), not the REST API's
INSTRUCTIONS = (
    "Books chauffeur rides in and around Vienna. places.autocomplete turns what a traveller types into "
    "addresses. To quote: booking.estimate_distance (from, to), then "
    "booking.calculate_price with its distance as distanceKm and its inZoneA, and "
    "booking.check_availability for the pickup time; child seats, a name sign and other extras from "
    "booking.list_extras go into the price and the booking as extras, with passengers and luggage; "
    "stops on the way go into the estimate as stops, the price as stopWaits and the booking as stops. "
    "To book: booking.create_checkout with amount = priceEur x 100 (EUR cents) and bookingData (from, to, "
    "pickupDatetime, vehicleClass, plus the "
    "traveller's name, email and phone), then give the traveller the returned url: the ride is paid "
    "there. booking.list_bookings lists the traveller's bookings (or this token's); "
    "booking.get_booking tells a booking's state, chauffeur and cancellation terms; "
    "booking.cancel_booking cancels it under the operator's policy; to move its pickup or change its "
    "class, booking.quote_change prices the change (nothing changes) and booking.change_booking makes it "
    "once the traveller agrees. A trip the tariff cannot price (more "
    "passengers than any class seats, several cars or days): booking.request_quote asks the operator's "
    "staff for an offer by e-mail, booking.get_quote tells how the request stands. Date-times without an "
    "offset are "
    "Vienna local time. A tool result with isError carries code, detail and hint: follow the hint."
)
SERVER_INFO = {"name": SERVER_NAME, "title": SERVER_TITLE, "version": SERVER_VERSION}
CAPABILITIES = {"tools": {"listChanged": False}}
# 2026-07-28 cacheable results: the tools change only when the operator edits the lead-time or the
# cancellation policy that two descriptions quote, and they are the same for every token.
LIST_TTL_MS = 5 * 60 * 1000


@dataclass(frozen=True)
class Caller:
    token: ApiToken
    revision: Revision
    underscore_names: bool = False  # list tools as booking_estimate_distance …


def answer(message: jsonrpc.Message, caller: Caller) -> dict:
    """The result of one request; an RpcError when the request itself is refused."""
    assert message.method is not None  # noqa: S101  (views._answer answers requests only)
    modern = caller.revision.modern
    method = (MODERN_METHODS if modern else LEGACY_METHODS).get(message.method)
    if method is None:
        raise RpcError(jsonrpc.METHOD_NOT_FOUND, _not_found(message.method, caller.revision))
    result = method(message.params, caller)
    if modern:  # 2026-07-28, Basic › Messages › Responses; Basic › General fields › _meta
        return {"resultType": "complete", **result, "_meta": {SERVER_INFO_KEY: SERVER_INFO}}
    return result


def _not_found(method: str, revision: Revision) -> str:
    text = f"Method not found: {clip(method)}."
    if method == "initialize" and revision.modern:
        text += f" MCP {revision.version} has no handshake: call server/discover, or initialize with the "
        text += f"{revisions.VERSION_HEADER} header {LEGACY_VERSIONS[0]}."
    return text


def _initialize(params: dict, caller: Caller) -> dict:
    requested = params.get("protocolVersion")
    if not isinstance(requested, str):
        raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: initialize needs `protocolVersion`.")
    # A version not offered here (2024-11-05, or a later one) gets the newest handshake version, and the
    # client decides (2025-11-25, Basic › Lifecycle › Version Negotiation).
    return {
        "protocolVersion": requested if requested in LEGACY_VERSIONS else LEGACY_VERSIONS[0],
        "capabilities": CAPABILITIES,
        "serverInfo": SERVER_INFO,
        "instructions": tools.spelled(INSTRUCTIONS, underscore=caller.underscore_names),
    }


def _discover(params: dict, caller: Caller) -> dict:
    return {
        "supportedVersions": list(SUPPORTED_VERSIONS),
        "capabilities": CAPABILITIES,
        "instructions": tools.spelled(INSTRUCTIONS, underscore=caller.underscore_names),
        "ttlMs": LIST_TTL_MS,
        "cacheScope": "public",
    }


def _ping(params: dict, caller: Caller) -> dict:
    return {}


def _list_tools(params: dict, caller: Caller) -> dict:
    listed: dict[str, object] = {
        "tools": [tool.listing(underscore=caller.underscore_names) for tool in tools.TOOLS]
    }
    if caller.revision.modern:
        listed.update(ttlMs=LIST_TTL_MS, cacheScope="public")
    return listed


def _call_tool(params: dict, caller: Caller) -> dict:
    name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(name, str):
        raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: tools/call needs the tool's `name`.")
    tool = tools.find(name)
    if tool is None:
        known = ", ".join(tool.alias if caller.underscore_names else tool.name for tool in tools.TOOLS)
        raise RpcError(jsonrpc.INVALID_PARAMS, f"Unknown tool: {clip(name)}. The tools are {known}.")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: `arguments` must be an object.")
    try:
        require_scope(caller.token, tool.scope, resource=MCP_RESOURCE)
    except InsufficientScope as refusal:
        raise problem_error(classify(refusal), requiredScope=tool.scope) from None
    return tools.call(tool, arguments, token=caller.token)


Method = Callable[[dict, Caller], dict]
LEGACY_METHODS: dict[str, Method] = {
    "initialize": _initialize,
    "ping": _ping,
    "tools/list": _list_tools,
    "tools/call": _call_tool,
}
# 2026-07-28 removed initialize and ping (Key Changes 2 and 5) and added server/discover.
MODERN_METHODS: dict[str, Method] = {
    "server/discover": _discover,
    "tools/list": _list_tools,
    "tools/call": _call_tool,
}


def problem_error(problem: Problem, **data) -> RpcError:
    """A refusal the REST API would answer with a problem (401, 403, 429 …), as a JSON-RPC error with
    the same HTTP status and headers and the problem's members in `error.data`."""
    message, reason = problem.detail, None
    if problem.code == "rate_limited":
        seconds = data["retryAfter"] = int(problem.headers.get("Retry-After", "1"))  # the rate limiter's
        # The wait in the error's message and the status line too: clients that show only the message, or
        # whose transport drops a 429's body and quotes only `429 <reason>`, still tell it.
        message = f"Rate limit reached: try again in {seconds} seconds."
        reason = f"Too Many Requests: retry in {seconds} seconds"
    return RpcError(
        jsonrpc.PROBLEM_CODES.get(problem.code, jsonrpc.INVALID_REQUEST),
        message,
        status=problem.http_status,
        data={**problem_body(problem, for_tools=True), **data},
        headers=problem.headers,
        reason=reason,
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
        "protocolVersions": list(SUPPORTED_VERSIONS),
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
