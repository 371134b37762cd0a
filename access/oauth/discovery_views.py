"""The discovery documents and the registration endpoint (docs/agents/oauth.md, "Discovery and
registration"): thin doors over access/oauth/discovery.py and registration.py. The documents are public,
the same for everyone, readable from any origin (browser-based MCP clients read them) and cacheable for a
few minutes; registration answers in RFC 7591's JSON, never a page."""

import json
import logging

from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from access.oauth import discovery, registration
from access.oauth.metadata_rules import MetadataError
from chauffeur.api.problems import COMPACT, Problem, classify

logger = logging.getLogger(__name__)

DOCUMENT_MAX_AGE = 300  # seconds a client or proxy may keep a discovery document
MAX_REGISTRATION_BYTES = 16 * 1024
NO_STORE = "no-store"  # a registration answer may carry a client secret (RFC 7591 §3.2.1)


def protected_resource(request: HttpRequest, resource: str) -> HttpResponse:
    return _document(request, lambda: discovery.protected_resource_metadata(resource))


def authorization_server(request: HttpRequest) -> HttpResponse:
    return _document(request, discovery.authorization_server_metadata)


def _document(request: HttpRequest, build) -> HttpResponse:
    if request.method == "OPTIONS":
        return _open(HttpResponse(status=204), methods="GET, HEAD, OPTIONS")
    if request.method not in ("GET", "HEAD"):
        return _open(_not_allowed("GET, HEAD, OPTIONS"), methods="GET, HEAD, OPTIONS")
    response = _open(JsonResponse(build(), json_dumps_params=COMPACT), methods="GET, HEAD, OPTIONS")
    response["Cache-Control"] = f"public, max-age={DOCUMENT_MAX_AGE}"
    return response


@csrf_exempt  # no cookies are read: a client posts its own description
def register(request: HttpRequest) -> HttpResponse:
    if request.method == "OPTIONS":
        return _open(HttpResponse(status=204), methods="POST, OPTIONS")
    if request.method != "POST":
        return _open(_not_allowed("POST, OPTIONS"), methods="POST, OPTIONS")
    try:
        metadata = _json_body(request)
        registered = registration.register_client(metadata=metadata)
    except MetadataError as refusal:
        return _open(oauth_error(refusal.error, refusal.description, status=400), methods="POST, OPTIONS")
    except DatabaseError as failure:  # never a 500: the API's classification of an outage
        return _open(oauth_error_response(classify(failure)), methods="POST, OPTIONS")
    response = JsonResponse(registered.document, status=201, json_dumps_params=COMPACT)
    response["Cache-Control"], response["Pragma"] = NO_STORE, "no-cache"
    return _open(response, methods="POST, OPTIONS")


def _json_body(request: HttpRequest) -> object:
    if (request.content_type or "") != "application/json":
        raise MetadataError("Send the client metadata as Content-Type: application/json.")
    too_large = MetadataError(f"The client metadata must be at most {MAX_REGISTRATION_BYTES // 1024} KiB.")
    length = request.META.get("CONTENT_LENGTH") or "0"
    if not length.isdigit() or int(length) > MAX_REGISTRATION_BYTES:
        raise too_large
    try:
        body = request.body
    except RequestDataTooBig:
        raise too_large from None
    if len(body) > MAX_REGISTRATION_BYTES:
        raise too_large
    try:
        return json.loads(body)
    except ValueError:
        raise MetadataError("The request body is not valid JSON.") from None


def oauth_error(error: str, description: str, *, status: int, headers: dict[str, str] | None = None):
    """An OAuth error answer (RFC 6749 §5.2, RFC 7591 §3.2.2): `error` and `error_description`."""
    response = JsonResponse(
        {"error": error, "error_description": description}, status=status, json_dumps_params=COMPACT
    )
    response["Cache-Control"] = NO_STORE
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def oauth_error_response(problem: Problem) -> HttpResponse:
    """A problem the shared plumbing raised (the rate limiter's 429, a database outage) in OAuth's error
    format, on the OAuth endpoints registered in access/apps.py."""
    return oauth_error(problem.code, problem.detail, status=problem.http_status, headers=problem.headers)


def _not_allowed(allow: str) -> HttpResponse:
    response = oauth_error("invalid_request", f"Use {allow}.", status=405)
    response["Allow"] = allow
    return response


def _open(response: HttpResponse, *, methods: str) -> HttpResponse:
    """Readable from any origin: nothing here depends on cookies or who asks."""
    response["Access-Control-Allow-Origin"] = "*"
    response["Access-Control-Allow-Methods"] = methods
    response["Access-Control-Allow-Headers"] = "Content-Type, MCP-Protocol-Version"
    response["Access-Control-Max-Age"] = "86400"
    return response
