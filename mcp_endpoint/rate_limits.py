"""The rate limiter's budgets with the MCP door's view of a message (settings.API_RATE_LIMIT_CLIENT): a
token's billable messages (tools/call, and whatever is not listed below) count in its usual budget, while
protocol housekeeping counts in a separate, generous one. A client that opens a session per call
(langchain-mcp-adapters sends initialize, a notification and tools/list before each tools/call) then meets
the limit at the same number of calls as one that keeps its session (docs/agents/index.md)."""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest

from access.authentication import rate_limit_client
from apikit.ratelimit import Quota
from mcp_endpoint import jsonrpc
from mcp_endpoint.urls import MCP_PATH

HOUSEKEEPING_POLICY = "housekeeping"
HOUSEKEEPING_METHODS = frozenset(
    {
        "initialize",
        "ping",
        "tools/list",
        "server/discover",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
        "logging/setLevel",
    }
)


def client_quotas(request: HttpRequest) -> list[Quota]:
    quotas = rate_limit_client(request)
    if not (request.path_info == MCP_PATH and request.method == "POST" and _counts_as_token(quotas)):
        return quotas  # a stranger's body is never read (mcp_endpoint/views.py)
    if not only_housekeeping(request):
        return quotas
    return [
        # a token whose budget staff raised above it keeps that for housekeeping too
        Quota(
            f"{quota.key}:{HOUSEKEEPING_POLICY}",
            max(quota.limit, settings.MCP_HOUSEKEEPING_RATE_LIMIT),
            quota.window,
            HOUSEKEEPING_POLICY,
        )
        for quota in quotas
    ]


def only_housekeeping(request: HttpRequest) -> bool:
    """Whether every message of the POST is housekeeping: a notification, a response, or a method listed
    above. Anything unreadable counts as billable (the endpoint then answers its own error)."""
    try:
        document = jsonrpc.decode(request)
    except RequestDataTooBig:
        return False
    messages = document if isinstance(document, list) else [document]
    return bool(messages) and all(_is_housekeeping(message) for message in messages)


def _is_housekeeping(message: object) -> bool:
    if not isinstance(message, dict):
        return False
    method = message.get("method")
    if method is None:
        return "id" in message and ("result" in message or "error" in message)  # a response to us
    return isinstance(method, str) and (method in HOUSEKEEPING_METHODS or method.startswith("notifications/"))


def _counts_as_token(quotas: list[Quota]) -> bool:
    return len(quotas) == 1 and quotas[0].key.startswith(("token:", "grant:"))  # access.authentication
