"""/api/mcp in /openapi.json (a drf-spectacular postprocessing hook): the endpoint is a plain Django view,
so its two operations are written here, from the same metadata and tool declarations it serves."""

from access.models import Scope
from mcp_endpoint import jsonrpc, protocol, revisions
from mcp_endpoint.urls import MCP_PATH
from mcp_endpoint.views import TOOL_NAME_STYLES

REQUEST_ID = {"type": ["string", "integer"], "description": "Echoed in the answer."}
SCHEMAS = {
    "JsonRpcRequest": {
        "type": "object",
        "description": "One JSON-RPC 2.0 message per POST; under MCP 2025-03-26 (no MCP-Protocol-Version "
        "header) also a batch, an array of up to 20. Without `id` it is a notification, answered 202 "
        "without a body.",
        "required": ["jsonrpc", "method"],
        "properties": {
            "jsonrpc": {"type": "string", "enum": [jsonrpc.VERSION]},
            "id": REQUEST_ID,
            "method": {
                # Any other name is a parsed request too: answered with a JSON-RPC error (-32601), HTTP 200.
                "anyOf": [
                    {"type": "string", "enum": list({**protocol.LEGACY_METHODS, **protocol.MODERN_METHODS})},
                    {"type": "string", "minLength": 1},
                ],
                "description": "initialize and ping up to 2025-11-25, server/discover from 2026-07-28; or a "
                "notification. Another name is answered with the error -32601 (unknown method).",
            },
            "params": {
                # Not "type": "object": other values are answered with the error -32602 (HTTP 200).
                "description": "An object. initialize: protocolVersion, capabilities, clientInfo; "
                "tools/call: name (or its underscore alias) and arguments (the tool's inputSchema). From "
                "2026-07-28 every request's `_meta` carries io.modelcontextprotocol/protocolVersion and "
                "clientCapabilities.",
            },
        },
    },
    "JsonRpcBatch": {
        "type": "array",
        "description": "A batch, only under MCP 2025-03-26 (no MCP-Protocol-Version header): answered by an "
        "array of the requests' answers. Each item should be a JsonRpcRequest; an item that is not is "
        "answered by its own error in that array (JSON-RPC 2.0 › Batch), not by refusing the batch.",
        "items": {},
        "minItems": 1,
        "maxItems": jsonrpc.BATCH_LIMIT,
    },
    "JsonRpcResult": {
        "type": "object",
        "required": ["jsonrpc", "id", "result"],
        "properties": {
            "jsonrpc": {"type": "string", "enum": [jsonrpc.VERSION]},
            "id": REQUEST_ID,
            "result": {
                "type": "object",
                "description": "tools/call: {content: [{type: text, text}], structuredContent, isError}; "
                "structuredContent is the /api/v1 response of the tool's operation. With isError true "
                "there is no structuredContent: the text is the problem (code, detail, hint). From "
                "2026-07-28 every result also has resultType and the server's identity in `_meta`.",
            },
        },
    },
    "JsonRpcError": {
        "type": "object",
        "required": ["jsonrpc", "id", "error"],
        "properties": {
            "jsonrpc": {"type": "string", "enum": [jsonrpc.VERSION]},
            "id": {"type": ["string", "integer", "null"], "description": "Null when it could not be read."},
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {
                        "type": "integer",
                        "description": "-32700 parse error, -32600 invalid request, -32601 unknown method, "
                        "-32602 invalid params or unknown tool, -32603 internal error, -32020 header "
                        "mismatch, -32022 unsupported protocol version, -32010 unauthorized, -32011 "
                        "insufficient scope, -32012 forbidden origin, -32013 rate limited.",
                    },
                    "message": {"type": "string"},
                    "data": {"type": "object", "description": "The problem (code, detail, hint …), if any."},
                },
            },
        },
    },
    "JsonRpcBatchResponse": {
        "type": "array",
        "description": "A batch's answers, one per request in it (notifications get none), each a result "
        "or an error.",
        "items": {
            "oneOf": [
                {"$ref": "#/components/schemas/JsonRpcResult"},
                {"$ref": "#/components/schemas/JsonRpcError"},
            ]
        },
        "minItems": 1,
        "maxItems": jsonrpc.BATCH_LIMIT,
    },
    "McpMetadata": {
        "type": "object",
        "required": ["protocol", "server", "version", "tools"],
        "properties": {
            "protocol": {"type": "string"},
            "server": {"type": "string"},
            "version": {"type": "string", "example": protocol.SERVER_VERSION},
            "protocolVersions": {"type": "array", "items": {"type": "string"}},
            "authentication": {"type": "string"},
            "tools": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "description", "inputSchema", "requiredScope"],
                    "properties": {
                        "name": {"type": "string"},
                        "title": {"type": "string"},
                        "description": {"type": "string"},
                        "inputSchema": {"type": "object"},
                        "outputSchema": {"type": "object"},
                        "requiredScope": {"type": "string", "enum": Scope.values},
                    },
                },
            },
        },
    },
}
REFUSALS = {
    "400": "Not JSON or not JSON-RPC, a refused batch, an unsupported MCP-Protocol-Version; from 2026-07-28 "
    "also invalid params, an unknown tool and headers that disagree with the body.",
    "404": "From 2026-07-28: an unknown method (-32601).",
    "401": "No token, or an unknown, expired or revoked one.",
    "403": "The token lacks the tool's scope, or the Origin is foreign.",
    "406": "The Accept header excludes application/json.",
    "413": "The message is too large.",
    "415": "The body is not Content-Type: application/json.",
    "429": "Rate limit exceeded (per token): wait `Retry-After` seconds, also in `data.retryAfter`, the "
    "error's message and the status line's reason phrase.",
    "500": "Internal error (no details are disclosed).",
}
TOOL_NAMES_PARAMETER = {
    "name": "toolNames",
    "in": "query",
    "required": False,
    "schema": {"type": "string", "enum": list(TOOL_NAME_STYLES), "default": TOOL_NAME_STYLES[0]},
    "description": "`underscore` names the tools booking_estimate_distance … for clients that reject dots.",
}


def _ref(schema: str) -> dict:
    return {"$ref": f"#/components/schemas/{schema}"}


def _json(schema: str) -> dict:
    return {"application/json": {"schema": _ref(schema)}}


def _error(description: str, *headers: str) -> dict:
    response = {"description": description, "content": _json("JsonRpcError")}
    if headers:
        response["headers"] = {name: {"$ref": f"#/components/headers/{name}"} for name in headers}
    return response


def document_mcp_endpoint(result: dict, generator, request, public) -> dict:
    result.setdefault("components", {}).setdefault("schemas", {}).update(SCHEMAS)
    result.setdefault("paths", {})[MCP_PATH] = {
        "get": {
            "operationId": "getMcpMetadata",
            "summary": "The agent endpoint's metadata: protocol, server, version and tools with their scopes",
            "description": "What an agent developer reads before connecting: the MCP protocol revisions "
            "spoken here, the server's name and version, and every tool with its input and output "
            "schemas and the scope its token needs. No token needed. MCP clients speak to this address "
            "with POST; a GET asking for text/event-stream is refused (405), as this endpoint opens no "
            "streams.",
            "tags": ["agents"],
            "parameters": [TOOL_NAMES_PARAMETER],
            "security": [{}],
            "responses": {
                "200": {"description": "The metadata document.", "content": _json("McpMetadata")},
                "400": _error("Invalid query."),
                "405": _error("Accept asked for text/event-stream: this endpoint opens no streams."),
                "429": _error(REFUSALS["429"], "Retry-After"),
                "500": _error(REFUSALS["500"]),
            },
        },
        "post": {
            "operationId": "postMcpMessage",
            "summary": "Send an MCP message (JSON-RPC 2.0): tools/list, tools/call, server/discover …",
            "description": (
                "MCP over Streamable HTTP with plain JSON replies and no sessions. Protocol revisions "
                f"{', '.join(revisions.SUPPORTED_VERSIONS)}. Every message needs a bearer token; tools/call "
                "needs the tool's scope (booking.read, or booking.write for booking.create_checkout). "
                "A tool's refused arguments or domain failure is a 200 result with isError true; up to "
                "2025-11-25 every JSON-RPC error to a parsed message is a 200 as well."
            ),
            "tags": ["agents"],
            "parameters": [TOOL_NAMES_PARAMETER],
            "security": [{"bearerAuth": []}],
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": {"oneOf": [_ref("JsonRpcRequest"), _ref("JsonRpcBatch")]}}
                },
            },
            "responses": {
                "200": {
                    "description": "The request's result; up to 2025-11-25 also its JSON-RPC error (unknown "
                    "method, invalid params, unknown tool …); a batch's answers as an array.",
                    "content": {
                        "application/json": {
                            "schema": {
                                "oneOf": [
                                    _ref("JsonRpcResult"),
                                    _ref("JsonRpcError"),
                                    _ref("JsonRpcBatchResponse"),
                                ]
                            }
                        }
                    },
                },
                "202": {
                    "description": "Only notifications (or responses) were sent, alone or in a batch: "
                    "no body."
                },
                **{
                    status: _error(text, *(["Retry-After"] if status == "429" else []))
                    for status, text in REFUSALS.items()
                },
            },
        },
    }
    return result
