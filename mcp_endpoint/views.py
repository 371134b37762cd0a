"""The agent endpoint /api/mcp: MCP over Streamable HTTP with plain JSON replies and no sessions
(docs/decisions.md §10). The transport rules live here (Origin, headers, bearer token, status codes); the
messages are answered by `mcp_endpoint.protocol`."""

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import NamedTuple
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.http.request import HttpHeaders
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from access.authentication import InvalidToken, TokenRequired, authenticate
from access.models import ApiToken
from access.protected_resources import MCP_RESOURCE
from apikit import compression, ratelimit
from apikit.problems import Problem, classify, clip
from apikit.query import query_of
from mcp_endpoint import jsonrpc, protocol, revisions
from mcp_endpoint.jsonrpc import RpcError

logger = logging.getLogger(__name__)

TOOL_NAME_STYLES = ("dotted", "underscore")  # ?toolNames=underscore for clients that reject dots
# Why a method other HTTP APIs offer means nothing here.
NOT_ALLOWED = {
    "DELETE": "DELETE ends a session, and this endpoint keeps none: there is nothing to end.",
    "PUT": "PUT stores nothing here: send each JSON-RPC message with POST.",
    "PATCH": "PATCH changes nothing here: send each JSON-RPC message with POST.",
}
QUERY_HINT = "Leave out other query parameters: the endpoint reads only toolNames."


class McpView(View):
    @classmethod
    def as_view(cls, **initkwargs):
        # bearer tokens, not cookies: nothing to forge. On the view function, not with method_decorator,
        # which wraps `dispatch` anew on every request.
        return csrf_exempt(super().as_view(**initkwargs))

    def dispatch(self, request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
        try:
            _check_origin(request)  # on every method (Transports › Streamable HTTP › Security)
            if _token_comes_first(request):
                _authenticate(request)
        except RpcError as refusal:
            return refusal.reply()
        return super().dispatch(request, *args, **kwargs)

    def get(self, request: HttpRequest) -> HttpResponse:
        try:
            if _wants_event_stream(request):
                raise self._not_allowed(
                    "This endpoint opens no event streams: POST JSON-RPC messages, each answered in JSON."
                )
            return jsonrpc.reply(protocol.metadata(underscore_names=_underscore_names(request)))
        except RpcError as refusal:
            return refusal.reply()

    def post(self, request: HttpRequest) -> HttpResponse:
        request_id = None
        try:
            try:
                token = _authenticate(request)
            except RpcError:  # the token first: a stranger's large body is never parsed, a small one
                request_id = jsonrpc.early_request_id(request)  # only for the id its 401 names
                raise
            document = jsonrpc.decode(request)
            request_id = jsonrpc.request_id_of(document)
            _check_headers(request)
            headers = MetaHeaders(request.META)
            revision = revisions.of_request(headers, document)
            underscore = _underscore_names(request)
            caller = protocol.Caller(token=token, revision=revision, underscore_names=underscore)
            if not isinstance(document, list):
                answer = _answer(document, caller, headers)
                if answer is None:
                    return jsonrpc.reply(None)
                response = answer.reply()
                listed = isinstance(document, dict) and document.get("method") == "tools/list"
                if listed and "result" in answer.body:  # 100 KB of tools; no secret in it
                    compression.compress_for(request, response)
                return response
            if not revision.accepts_batches:
                batches = f"Batches are not part of MCP {revision.version}: send one message per POST."
                raise RpcError(jsonrpc.INVALID_REQUEST, batches, status=400)
            items = jsonrpc.batch_items(document)
            if len(items) > 1 and (usage := ratelimit.count_more(request, len(items) - 1)) and usage.exceeded:
                return protocol.problem_reply(ratelimit.over_limit(usage))  # every message counts
            answers = [_answer(item, caller, headers, in_batch=True) for item in items]
            return jsonrpc.reply([answer.body for answer in answers if answer is not None] or None)
        except RpcError as refusal:
            return refusal.reply(request_id)
        except RequestDataTooBig:
            return RpcError(jsonrpc.INVALID_REQUEST, "The message is too large.", status=413).reply()
        except Exception:
            logger.exception("The agent endpoint failed")
            return RpcError(jsonrpc.INTERNAL_ERROR, "Internal error; retry later.", status=500).reply(
                request_id
            )

    def options(self, request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
        response = super().options(request, *args, **kwargs)
        del response["Content-Type"]  # no body
        return response

    def http_method_not_allowed(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        method = clip(request.method or "")
        reason = NOT_ALLOWED.get(method, f"{method} is not supported here.")
        return self._not_allowed(reason).reply()

    def _not_allowed(self, reason: str) -> RpcError:
        allow = ", ".join(self._allowed_methods())  # type: ignore[attr-defined]  # View's, what OPTIONS lists too
        headers = {"Allow": allow}
        return RpcError(jsonrpc.INVALID_REQUEST, f"{reason} Use {allow}.", status=405, headers=headers)


def _answer(
    document: object, caller: protocol.Caller, headers: Mapping[str, str], *, in_batch: bool = False
) -> "Answer | None":
    """One message's answer; None for a message that expects none."""
    try:
        message = jsonrpc.parse(document)
        if not message.expects_answer or message.id is None:
            return None  # notifications and responses: 202, nothing to say
        if in_batch and message.method == "initialize":  # 2025-03-26, Basic › Lifecycle › Initialization
            raise RpcError(jsonrpc.INVALID_REQUEST, "Invalid request: initialize may not be in a batch.")
        if caller.revision.modern:
            revisions.check_envelope(message, headers)
        return Answer(jsonrpc.result(message.id, protocol.answer(message, caller)))
    except RpcError as refusal:
        status = refusal.status or caller.revision.status_of(refusal.code)
        return Answer(refusal.body(jsonrpc.request_id_of(document)), status, refusal.headers)


class MetaHeaders(Mapping):
    """`request.headers` for the few names a message is checked against, read from META one at a time:
    Django's HttpHeaders converts every header of the request when it is first used (3 % of a warm
    tools/call)."""

    __slots__ = ("_meta",)

    def __init__(self, meta: Mapping[str, str]):
        self._meta = meta

    def __getitem__(self, name: str) -> str:
        return self._meta[HttpHeaders.to_wsgi_name(name)]

    def __iter__(self):
        return iter(HttpHeaders(self._meta))

    def __len__(self) -> int:
        return len(HttpHeaders(self._meta))


class Answer(NamedTuple):
    """A JSON-RPC response and, when it is the whole reply, its HTTP status and headers."""

    body: dict
    status: int = 200
    headers: dict[str, str] = {}

    def reply(self) -> HttpResponse:
        return jsonrpc.reply(self.body, status=self.status, headers=self.headers)


def _check_origin(request: HttpRequest) -> None:
    """Browsers send Origin: only our own pages may call (DNS rebinding, MCP transport security)."""
    origin = request.META.get("HTTP_ORIGIN")
    if origin is None:
        return
    own = f"{request.scheme}://{request.get_host()}"
    allowed = {own, *(_origin_of(url) for url in [settings.PUBLIC_BASE_URL, *settings.CSRF_TRUSTED_ORIGINS])}
    if origin not in allowed:
        raise RpcError(
            jsonrpc.FORBIDDEN_ORIGIN,
            f"Requests from the origin {clip(origin)} are not accepted.",
            status=403,
            data={"code": "forbidden_origin", "hint": "Call the endpoint from a server or a local client."},
        )


def _token_comes_first(request: HttpRequest) -> bool:
    """Whether a presented token is checked before the method is (POST checks its own): an invalid token
    gets 401 whatever the method (Authorization › Token Handling), so a client that tries GET for an event
    stream learns that its token is bad, not that GET is refused. A request presenting none gets the
    method's own answer (the public tool list, or 405); CORS preflights carry none."""
    return request.method not in ("POST", "OPTIONS") and "HTTP_AUTHORIZATION" in request.META


def _wants_event_stream(request: HttpRequest) -> bool:
    return "text/event-stream" in request.META.get("HTTP_ACCEPT", "")


def _authenticate(request: HttpRequest) -> ApiToken:
    try:
        token = authenticate(request)
        if token is None:
            raise TokenRequired(
                "Every message needs a bearer token (Authorization: Bearer cbt_…).", resource=MCP_RESOURCE
            )
    except (TokenRequired, InvalidToken) as refusal:
        raise protocol.problem_error(classify(refusal)) from None
    return token


def early_refusal(request: HttpRequest, problem: Problem) -> HttpResponse:
    """The rate limiter's refusals before the view (a dead token's 401, the 429), naming the message's id
    where it can be read (apikit.problems.EARLY_REFUSAL_WRITERS)."""
    return protocol.problem_error(problem).reply(jsonrpc.early_request_id(request))


def _check_headers(request: HttpRequest) -> None:
    content_type = request.content_type or ""
    if content_type != "application/json":
        raise RpcError(
            jsonrpc.INVALID_REQUEST,
            f"Send the message as Content-Type: application/json, not {clip(content_type) or 'nothing'}.",
            status=415,
        )
    accept = request.META.get("HTTP_ACCEPT")
    if accept and not any(kind in accept for kind in ("application/json", "application/*", "*/*")):
        raise RpcError(
            jsonrpc.INVALID_REQUEST, "Replies are application/json: accept it (Accept header).", status=406
        )


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _underscore_names(request: HttpRequest) -> bool:
    try:
        style = query_of(request).get("toolNames", TOOL_NAME_STYLES[0])
    except TooManyFieldsSent as refusal:  # refused as the REST API refuses it (problems.classify)
        raise protocol.problem_error(replace(classify(refusal), hint=QUERY_HINT)) from None
    if style not in TOOL_NAME_STYLES:
        raise RpcError(
            jsonrpc.INVALID_REQUEST, f"toolNames must be one of {', '.join(TOOL_NAME_STYLES)}.", status=400
        )
    return style == "underscore"
