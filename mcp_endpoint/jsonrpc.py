"""JSON-RPC 2.0 messages as MCP uses them: ids that are strings or integers, params that are objects, and
batches where the revision allows them. Knows nothing of tools or HTTP views; `reply` writes the answer."""

from dataclasses import dataclass, field

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse

from apikit import parsers as strict_json
from apikit.renderers import dumps

VERSION = "2.0"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# MCP's own (2026-07-28, Basic › Error Codes): the band -32020 to -32099 belongs to the specification.
HEADER_MISMATCH = -32020
UNSUPPORTED_PROTOCOL_VERSION = -32022
# Our own, chosen before MCP partitioned the band; its -32000 to -32019 stays implementation-defined.
UNAUTHORIZED = -32010
INSUFFICIENT_SCOPE = -32011
FORBIDDEN_ORIGIN = -32012
RATE_LIMITED = -32013

# The problem codes of docs/decisions.md §8 that can end a message before a tool runs.
PROBLEM_CODES = {
    "unauthorized": UNAUTHORIZED,
    "insufficient_scope": INSUFFICIENT_SCOPE,
    "rate_limited": RATE_LIMITED,
    "internal_error": INTERNAL_ERROR,
}

RequestId = str | int
BATCH_LIMIT = 20  # messages in one batch
# A body this small is read for its id even when the message is refused before it is read (no token, the
# rate limit): every real message is, and a stranger's large body is still never parsed.
ID_READ_LIMIT = 64 * 1024


class RpcError(Exception):
    """A message refused before or instead of a result, written as a JSON-RPC error. `status` is set for
    what the transport refuses (no message exists yet, or the token, Origin or size is wrong); None leaves
    the HTTP status to the message's revision (`mcp_endpoint.revisions`). `reason` replaces the status
    line's standard reason phrase (HTTP clients that drop the body still quote it)."""

    def __init__(
        self,
        code: int,
        message: str,
        *,
        status: int | None = None,
        data: dict | None = None,
        headers: dict[str, str] | None = None,
        reason: str | None = None,
    ):
        super().__init__(message)
        self.code, self.message, self.status = code, message, status
        self.data = data
        self.headers = headers or {}
        self.reason = reason

    def body(self, request_id: RequestId | None) -> dict:
        error: dict = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return {"jsonrpc": VERSION, "id": request_id, "error": error}

    def reply(self, request_id: RequestId | None = None, *, status: int | None = None) -> HttpResponse:
        response = reply(self.body(request_id), status=self.status or status or 400, headers=self.headers)
        if self.reason is not None:
            response.reason_phrase = self.reason
        return response


@dataclass(frozen=True)
class Message:
    method: str | None  # None for a response the client sends back
    id: RequestId | None = None
    params: dict = field(default_factory=dict)

    @property
    def expects_answer(self) -> bool:
        """Requests do; notifications (no id) and the client's own responses do not."""
        return self.method is not None and self.id is not None


UNREADABLE = object()  # what `decode` gives for a body that is not JSON


def decode(request: HttpRequest) -> object:
    """The body's JSON, read once per request (the rate limiter looks at it first): the id of even a
    refused message is needed before `parse` runs. Raises RequestDataTooBig for a body over the limit."""
    document = request.__dict__.get("_jsonrpc_document")
    if document is None:
        try:
            document = strict_json.loads(request.body)
        except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            document = UNREADABLE
        request.__dict__["_jsonrpc_document"] = document
    return document


def parse(document: object) -> Message:
    """One decoded JSON-RPC message (a body, or an item of a batch), or the RpcError that refuses it."""
    if document is UNREADABLE:
        raise RpcError(PARSE_ERROR, "Parse error: the body is not valid JSON.", status=400)
    if not isinstance(document, dict) or document.get("jsonrpc") != VERSION:
        raise _not_json_rpc('expected a JSON-RPC 2.0 object ("jsonrpc": "2.0").')
    request_id = document.get("id")
    if "id" in document and not _is_request_id(request_id):
        raise _not_json_rpc("`id` must be a string or an integer.")
    if "method" not in document:
        if "id" in document and ("result" in document) != ("error" in document):
            return Message(method=None, id=request_id)  # a response to a server request; we send none
        raise _not_json_rpc("`method` is missing.")
    method, params = document["method"], document.get("params", {})
    if not isinstance(method, str) or not method:
        raise _not_json_rpc("`method` must be a non-empty string.")
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "Invalid params: `params` must be an object.")
    return Message(method=method, id=request_id, params=params)


def batch_items(document: list) -> list:
    """The messages of a batch (JSON-RPC 2.0 › Batch), bounded: the whole batch is one HTTP request."""
    if not document:
        raise _not_json_rpc("an empty batch.")
    if len(document) > BATCH_LIMIT:
        raise _not_json_rpc(f"a batch holds at most {BATCH_LIMIT} messages, not {len(document)}.")
    return document


def _not_json_rpc(reason: str) -> RpcError:
    return RpcError(INVALID_REQUEST, f"Invalid request: {reason}", status=400)


def early_request_id(request: HttpRequest) -> RequestId | None:
    """The id of a message refused before it is read, if its body was read already or is small enough to
    read for it; None for a batch, a body that is not JSON, or a large one."""
    document = request.__dict__.get("_jsonrpc_document")
    if document is None:
        length = request.META.get("CONTENT_LENGTH") or ""
        if not length.isdigit() or int(length) > ID_READ_LIMIT:
            return None
        try:
            document = decode(request)
        except RequestDataTooBig:
            return None
    return request_id_of(document)


def request_id_of(document: object) -> RequestId | None:
    """The id of a decoded message, if usable, so that even a refused message's error names it."""
    request_id = document.get("id") if isinstance(document, dict) else None
    return request_id if _is_request_id(request_id) else None


def result(request_id: RequestId, value: dict) -> dict:
    return {"jsonrpc": VERSION, "id": request_id, "result": value}


def reply(
    payload: dict | list | None, *, status: int = 200, headers: dict[str, str] | None = None
) -> HttpResponse:
    """The HTTP answer: JSON (Decimal amounts as written by the REST API), or 202 with no body at all."""
    if payload is None:
        response = HttpResponse(status=202)
        del response["Content-Type"]
    else:
        response = HttpResponse(dumps(payload), status=status, content_type="application/json")
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def _is_request_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
