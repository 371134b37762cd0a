"""The agent endpoint /api/mcp: MCP over Streamable HTTP with plain JSON replies and no sessions
(docs/decisions.md §10). The transport rules live here (Origin, headers, bearer token, status codes); the
messages are answered by `agents.protocol`."""

import logging
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from access.authentication import InvalidToken, TokenRequired, authenticate
from access.models import ApiToken
from agents import jsonrpc, protocol
from agents.jsonrpc import RpcError
from chauffeur.api.problems import classify

logger = logging.getLogger(__name__)

ALLOW = "GET, POST"
PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version"
TOOL_NAME_STYLES = ("dotted", "underscore")  # ?toolNames=underscore for clients that reject dots


@method_decorator(csrf_exempt, name="dispatch")  # bearer tokens, not cookies: nothing to forge
class McpView(View):
    def get(self, request: HttpRequest) -> HttpResponse:
        try:
            if "text/event-stream" in request.headers.get("Accept", ""):
                raise RpcError(
                    jsonrpc.INVALID_REQUEST,
                    "This endpoint opens no event streams: POST JSON-RPC messages, each answered in JSON.",
                    status=405,
                    headers={"Allow": ALLOW},
                )
            return jsonrpc.reply(protocol.metadata(underscore_names=_underscore_names(request)))
        except RpcError as refusal:
            return refusal.reply()

    def post(self, request: HttpRequest) -> HttpResponse:
        request_id = None
        try:
            # The token first: a stranger's body is never parsed, so a 401 cannot name the message's id.
            token = _authenticate(request)
            document = jsonrpc.decode(request.body)
            request_id = jsonrpc.request_id_of(document)
            _check_origin(request)
            _check_headers(request)
            message = jsonrpc.parse(document)
            if not message.expects_answer:
                return jsonrpc.reply(None)  # notifications and responses: 202, nothing to say
            caller = protocol.Caller(token=token, underscore_names=_underscore_names(request))
            return jsonrpc.reply(jsonrpc.result(message.id, protocol.answer(message, caller)))
        except RpcError as refusal:
            return refusal.reply(request_id)
        except RequestDataTooBig:
            return RpcError(jsonrpc.INVALID_REQUEST, "The message is too large.", status=413).reply()
        except Exception:
            logger.exception("The agent endpoint failed")
            return RpcError(jsonrpc.INTERNAL_ERROR, "Internal error; retry later.", status=500).reply(
                request_id
            )

    def http_method_not_allowed(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        return RpcError(
            jsonrpc.INVALID_REQUEST,
            f"{request.method} is not supported here (no sessions to end): use {ALLOW}.",
            status=405,
            headers={"Allow": ALLOW},
        ).reply()


def _check_origin(request: HttpRequest) -> None:
    """Browsers send Origin: only our own pages may call (DNS rebinding, MCP transport security)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return
    own = f"{request.scheme}://{request.get_host()}"
    allowed = {own, *(_origin_of(url) for url in [settings.PUBLIC_BASE_URL, *settings.CSRF_TRUSTED_ORIGINS])}
    if origin not in allowed:
        raise RpcError(
            jsonrpc.FORBIDDEN_ORIGIN,
            f"Requests from the origin {origin} are not accepted.",
            status=403,
            data={"code": "forbidden_origin", "hint": "Call the endpoint from a server or a local client."},
        )


def _authenticate(request: HttpRequest) -> ApiToken:
    try:
        token = authenticate(request)
        if token is None:
            raise TokenRequired("Every message needs a bearer token (Authorization: Bearer cbt_…).")
    except (TokenRequired, InvalidToken) as refusal:
        raise protocol.problem_error(classify(refusal)) from None
    return token


def _check_headers(request: HttpRequest) -> None:
    content_type = request.content_type or ""
    if content_type != "application/json":
        raise RpcError(
            jsonrpc.INVALID_REQUEST,
            f"Send the message as Content-Type: application/json, not {content_type or 'nothing'}.",
            status=415,
        )
    accept = request.headers.get("Accept")
    if accept and not any(kind in accept for kind in ("application/json", "application/*", "*/*")):
        raise RpcError(
            jsonrpc.INVALID_REQUEST, "Replies are application/json: accept it (Accept header).", status=406
        )
    version = request.headers.get(PROTOCOL_VERSION_HEADER)
    if version is not None and version not in protocol.PROTOCOL_VERSIONS:
        supported = ", ".join(protocol.PROTOCOL_VERSIONS)
        raise RpcError(
            jsonrpc.INVALID_REQUEST,
            f"Unsupported {PROTOCOL_VERSION_HEADER}: {version}. This server speaks {supported}; "
            "initialize to negotiate.",
            data={"supported": list(protocol.PROTOCOL_VERSIONS), "requested": version},
        )


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _underscore_names(request: HttpRequest) -> bool:
    style = request.GET.get("toolNames", TOOL_NAME_STYLES[0])
    if style not in TOOL_NAME_STYLES:
        raise RpcError(jsonrpc.INVALID_REQUEST, f"toolNames must be one of {', '.join(TOOL_NAME_STYLES)}.")
    return style == "underscore"
