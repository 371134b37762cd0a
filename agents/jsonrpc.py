"""JSON-RPC 2.0 messages as MCP uses them: one message per POST (no batches), ids that are strings or
integers, params that are objects. Knows nothing of tools or HTTP views; `reply` writes the answer."""

from dataclasses import dataclass, field

from django.http import HttpResponse

from chauffeur.api import parsers as strict_json
from chauffeur.api.renderers import dumps

VERSION = "2.0"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# Our own codes, in JSON-RPC's implementation-defined band (MCP keeps -32000/-32001 for its SDKs).
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


class RpcError(Exception):
    """A message refused before or instead of a result: written as a JSON-RPC error at `status`."""

    def __init__(
        self,
        code: int,
        message: str,
        *,
        status: int = 400,
        data: dict | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.code, self.message, self.status = code, message, status
        self.data = data
        self.headers = headers or {}

    def body(self, request_id: RequestId | None) -> dict:
        error: dict = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return {"jsonrpc": VERSION, "id": request_id, "error": error}

    def reply(self, request_id: RequestId | None = None) -> HttpResponse:
        return reply(self.body(request_id), status=self.status, headers=self.headers)


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


def decode(body: bytes) -> object:
    """The body's JSON, read once: the id of even a refused message is needed before `parse` runs."""
    try:
        return strict_json.loads(body)
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return UNREADABLE


def parse(document: object) -> Message:
    """A decoded body as one JSON-RPC message, or the RpcError that refuses it."""
    if document is UNREADABLE:
        raise RpcError(PARSE_ERROR, "Parse error: the body is not valid JSON.")
    if isinstance(document, list):
        raise RpcError(INVALID_REQUEST, "Batches are not supported: send one JSON-RPC message per POST.")
    if not isinstance(document, dict) or document.get("jsonrpc") != VERSION:
        raise RpcError(INVALID_REQUEST, 'Invalid request: expected a JSON-RPC 2.0 object ("jsonrpc": "2.0").')
    request_id = document.get("id")
    if "id" in document and not _is_request_id(request_id):
        raise RpcError(INVALID_REQUEST, "Invalid request: `id` must be a string or an integer.")
    if "method" not in document:
        if "id" in document and ("result" in document) != ("error" in document):
            return Message(method=None, id=request_id)  # a response to a server request; we send none
        raise RpcError(INVALID_REQUEST, "Invalid request: `method` is missing.")
    method, params = document["method"], document.get("params", {})
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, "Invalid request: `method` must be a non-empty string.")
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "Invalid params: `params` must be an object.")
    return Message(method=method, id=request_id, params=params)


def request_id_of(document: object) -> RequestId | None:
    """The id of a decoded message, if usable, so that even a refused message's error names it."""
    request_id = document.get("id") if isinstance(document, dict) else None
    return request_id if _is_request_id(request_id) else None


def result(request_id: RequestId, value: dict) -> dict:
    return {"jsonrpc": VERSION, "id": request_id, "result": value}


def reply(payload: dict | None, *, status: int = 200, headers: dict[str, str] | None = None) -> HttpResponse:
    """The HTTP answer: JSON (Decimal amounts as written by the REST API), or 202 without a body."""
    if payload is None:
        response = HttpResponse(status=202)
    else:
        response = HttpResponse(dumps(payload), status=status, content_type="application/json")
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def _is_request_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
