"""Which MCP revision a message speaks, and what that revision asks of it (docs/decisions.md §10).

Two eras share /api/mcp (MCP 2026-07-28, Basic › Versioning › Backward Compatibility):
- legacy, 2025-03-26 to 2025-11-25: `initialize` negotiates the version, which later requests repeat in
  the MCP-Protocol-Version header. A request without it is 2025-03-26 (Transports › Streamable HTTP ›
  Protocol Version Header), and 2025-03-26 requires batches (Basic › Batching). Every JSON-RPC answer to
  a parsed message is HTTP 200: the 1.x TypeScript client takes any other status for a broken transport.
- modern, 2026-07-28: no handshake. Each request carries its version and the client's capabilities in
  `params._meta`, mirrored in the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, which must agree
  with the body; its errors have the HTTP statuses that revision assigns.
"""

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass

from apikit.problems import clip
from mcp_endpoint import jsonrpc
from mcp_endpoint.jsonrpc import RpcError

MODERN_VERSIONS = ("2026-07-28",)
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
SUPPORTED_VERSIONS = MODERN_VERSIONS + LEGACY_VERSIONS  # newest first
UNANNOUNCED_VERSION = "2025-03-26"  # what a request without the header speaks

VERSION_HEADER = "MCP-Protocol-Version"
METHOD_HEADER = "Mcp-Method"
NAME_HEADER = "Mcp-Name"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
NAMED_METHODS = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}

# 2026-07-28, Transports › Streamable HTTP: the statuses of errors to a parsed request; others are 200.
MODERN_STATUS = {
    jsonrpc.PARSE_ERROR: 400,
    jsonrpc.INVALID_REQUEST: 400,
    jsonrpc.INVALID_PARAMS: 400,
    jsonrpc.HEADER_MISMATCH: 400,
    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION: 400,
    jsonrpc.METHOD_NOT_FOUND: 404,
}
BASE64_SENTINEL = ("=?base64?", "?=")


@dataclass(frozen=True)
class Revision:
    version: str

    @property
    def modern(self) -> bool:
        return self.version in MODERN_VERSIONS

    @property
    def accepts_batches(self) -> bool:
        return self.version == UNANNOUNCED_VERSION

    def status_of(self, code: int) -> int:
        """The HTTP status of a JSON-RPC error answering a parsed message."""
        return MODERN_STATUS.get(code, 200) if self.modern else 200


def of_request(headers: Mapping[str, str], document: object) -> Revision:
    """The revision a POST speaks: its header, else the body's own `_meta` (a modern client that forgot the
    header is told so by `check_envelope`), else 2025-03-26."""
    version = headers.get(VERSION_HEADER)
    if version is None:
        declared = isinstance(document, dict) and _meta_of(document).get(VERSION_KEY)
        return Revision(MODERN_VERSIONS[0] if declared else UNANNOUNCED_VERSION)
    if version not in SUPPORTED_VERSIONS:
        raise unsupported(version)
    return Revision(version)


def unsupported(version: object) -> RpcError:
    requested = clip(version) if isinstance(version, str) else version
    return RpcError(
        jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
        f"Unsupported protocol version: {requested}. This server speaks {', '.join(SUPPORTED_VERSIONS)}.",
        status=400,
        data={"supported": list(SUPPORTED_VERSIONS), "requested": requested},
    )


def check_envelope(message: jsonrpc.Message, headers: Mapping[str, str]) -> None:
    """A 2026-07-28 request: the required `_meta` fields (Basic › General fields › _meta), and headers that
    agree with the body (Transports › Streamable HTTP › Server Validation)."""
    assert message.method is not None  # noqa: S101  (views._answer checks requests only)
    meta = message.params.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    missing = [key for key in (VERSION_KEY, CAPABILITIES_KEY) if key not in meta]
    if missing:
        raise _invalid(f"`_meta` needs {' and '.join(missing)}.")
    if not isinstance(meta[CAPABILITIES_KEY], dict):
        raise _invalid(f"`_meta` {CAPABILITIES_KEY} must be an object.")
    version = headers.get(VERSION_HEADER)
    if version is None:
        raise _mismatch(f"the {VERSION_HEADER} header is missing.")
    if meta[VERSION_KEY] != version:
        raise _mismatch(f"{VERSION_HEADER} {clip(version)} differs from the body's {VERSION_KEY}.")
    if headers.get(METHOD_HEADER) != message.method:
        raise _mismatch(f"the {METHOD_HEADER} header must repeat the method, {clip(message.method)}.")
    named = NAMED_METHODS.get(message.method)
    value = message.params.get(named) if named else None
    if value is not None and _decoded(headers.get(NAME_HEADER)) != value:
        raise _mismatch(f"the {NAME_HEADER} header must repeat params.{named}.")


def _meta_of(document: dict) -> dict:
    params = document.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta if isinstance(meta, dict) else {}


def _decoded(value: str | None) -> str | None:
    """A header value, with the Base64 form (`=?base64?…?=`) that carries non-ASCII names decoded."""
    start, end = BASE64_SENTINEL
    if value is None or not (value.startswith(start) and value.endswith(end)):
        return value
    try:
        return base64.b64decode(value[len(start) : -len(end)], validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise _mismatch(f"the {NAME_HEADER} header is not valid Base64.") from None


def _invalid(reason: str) -> RpcError:
    return RpcError(jsonrpc.INVALID_PARAMS, f"Invalid params: {reason}")


def _mismatch(reason: str) -> RpcError:
    return RpcError(jsonrpc.HEADER_MISMATCH, f"Header mismatch: {reason}")
