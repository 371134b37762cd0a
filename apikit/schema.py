"""OpenAPI additions every /api/ operation shares: rate-limit headers on each response; what the form of a
request earns (405 with Allow, 406, 413, 414, 415), 401 with its challenge, 429, each in the error body of
its surface (problem+json on /api/v1, `{"error": …}` on the legacy endpoints); the headers some answers
carry (Idempotent-Replayed, Deprecation, Sunset, Link); and the document's server, contact and tags."""

from django.conf import settings
from django.urls import reverse
from django.utils import translation

from apikit.field_schemas import PIPE_DELIMITED
from apikit.problems import (
    PROBLEM_CONTENT_TYPE,
    PROBLEM_KINDS,
    SURFACE_WRITERS,
    answers_problems,
    problem_response,
)
from apikit.request_limits import MAX_TARGET_BYTES

HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}

# What some refusals add, on both surfaces (DomainError.extra).
REFUSAL_MEMBERS = {
    "expectedAmount": {
        "type": "integer",
        "description": "amount_mismatch: the server's price in EUR cents; send it as `amount`.",
    },
    "earliestPickup": {
        "type": "string",
        "format": "date-time",
        "description": "lead_time: the earliest pickup that can be booked now.",
    },
    "minimumHours": {
        "type": "number",
        "description": "hire_too_short: the hours the drive alone takes; book at least these.",
    },
    "fittingClasses": {
        "type": "array",
        "items": {"type": "string"},
        "description": "vehicle_too_small: the classes that take the passengers and luggage; "
        "empty when none does.",
    },
    "maximumStops": {
        "type": "integer",
        "description": "too_many_stops: the most stops on the way the class makes (0: none).",
    },
}
PROBLEM_SCHEMA = {
    "type": "object",
    "description": "RFC 9457 problem details.",
    "required": ["type", "title", "status", "detail", "code", "hint"],
    "properties": {
        "type": {"type": "string", "format": "uri", "example": "urn:chauffeur:problem:invalid_request"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string", "enum": list(PROBLEM_KINDS)},
        "hint": {"type": "string"},
        "errors": {
            "type": "object",
            "description": "Validation messages by field name.",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
        **REFUSAL_MEMBERS,
    },
}
# The legacy endpoints' error: its text, and the same members where a refusal has them.
LEGACY_ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {"error": {"type": "string"}, **REFUSAL_MEMBERS},
}
HEADERS = {
    "RateLimit": {
        "description": "Remaining requests (r) and seconds until the window resets (t).",
        "schema": {"type": "string", "example": '"default";r=59;t=60'},
    },
    "RateLimit-Policy": {
        "description": "The quota (q) of requests per window of w seconds.",
        "schema": {"type": "string", "example": '"default";q=60;w=60'},
    },
    "Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}},
    "Allow": {
        "description": "The methods this path takes.",
        "schema": {"type": "string", "example": "POST, OPTIONS"},
    },
    "WWW-Authenticate": {
        "description": "The Bearer challenge (RFC 6750): the `error`, the `scope` to ask for and, in "
        "`resource_metadata`, where the OAuth protected resource metadata (RFC 9728) names the "
        "authorization server.",
        "schema": {
            "type": "string",
            "example": 'Bearer error="insufficient_scope", scope="booking.read booking.write", '
            'resource_metadata="https://chauffeur.example.com/.well-known/oauth-protected-resource/api/v1"',
        },
    },
    "Idempotent-Replayed": {
        "description": "`true`: this is the first answer to an earlier request with the same "
        "Idempotency-Key and body, replayed; nothing was booked again. Absent on a first answer.",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "Deprecation": {
        "description": "The operation is deprecated (RFC 9745): `@` and the Unix time since when.",
        "schema": {"type": "string", "example": "@1793491200"},
    },
    "Sunset": {
        "description": "When the operation stops being served (RFC 8594), an HTTP date.",
        "schema": {"type": "string", "example": "Mon, 01 Mar 2027 00:00:00 GMT"},
    },
    "Link": {
        "description": 'Where the replacement is documented: `<…>; rel="deprecation"`.',
        "schema": {
            "type": "string",
            "example": '</api/docs#/legacy/createCheckoutSession>; rel="deprecation"',
        },
    },
}
DEPRECATION_HEADERS = ("Deprecation", "Sunset", "Link")
# Each tag an operation names, in the order Swagger UI lists them.
TAGS = {
    "catalog": "The operations of /api/v1, listed.",
    "quotes": "What a ride costs, how long it takes and whether it can be booked then; no token.",
    "places": "Address suggestions and the company's public rating; no token.",
    "booking": "Booking a ride and paying for it; reading, changing and cancelling a booking.",
    "webhooks": "Endpoints that receive the events of your bookings as they happen.",
    "agents": "The MCP endpoint through which AI agents quote and book (JSON-RPC over HTTP).",
    "pages": "The booking page's own calls: no token; errors as application/problem+json.",
    "legacy": "The first version of the interface, kept for existing integrations: errors are "
    '`{"error": …}`.',
}

# What every API operation may answer whatever its input: statuses the request's form earns (method, Accept,
# Content-Type, size) before any view reads it.
METHOD_NOT_ALLOWED = (
    "Method Not Allowed: the path does not take the method sent; the Allow header lists those it takes."
)
NOT_ACCEPTABLE = (
    "Not Acceptable: the Accept header names no type the operation answers with (application/json, and "
    "its errors' type)."
)
UNSUPPORTED_MEDIA_TYPE = "Unsupported Media Type: send the body as application/json."
URI_TOO_LONG = (
    f"URI too long: the path and query are longer than {MAX_TARGET_BYTES} bytes. Send long text in fewer or "
    "shorter parameters."
)


def request_too_large() -> str:
    return f"Request too large: the body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes."


def _ref(kind: str, name: str) -> dict:
    return {"$ref": f"#/components/{kind}/{name}"}


def _surface_content(path: str) -> dict:
    if answers_problems(path):
        return {PROBLEM_CONTENT_TYPE: {"schema": _ref("schemas", "Problem")}}
    return {"application/json": {"schema": _ref("schemas", "LegacyError")}}


def _error(description: str, content: dict, extra_headers: tuple[str, ...] = ()) -> dict:
    response = {"description": description, "content": content}
    if extra_headers:
        response["headers"] = {name: _ref("headers", name) for name in extra_headers}
    return response


def _is_rest(path: str) -> bool:
    """A DRF operation's path: its errors are problem+json or the legacy body; another surface (the agent
    endpoint's JSON-RPC) states its own refusals of a request's form."""
    return path not in SURFACE_WRITERS or SURFACE_WRITERS[path] is problem_response


def _first_kind(status: int):
    return next(kind for kind in PROBLEM_KINDS.values() if kind.status == status)


def _declared_error(declared: int | str | tuple[str, int]) -> tuple[int, str]:
    if isinstance(declared, tuple):
        code, status = declared
        return status, PROBLEM_KINDS[code].title
    kind = PROBLEM_KINDS[declared] if isinstance(declared, str) else _first_kind(declared)
    return kind.status, kind.title


def add_shared_responses(result: dict, generator, request, public) -> dict:
    # Absolute: a generated client takes it as its default base URL (hey-api reads "/" as a base that makes
    # "//api/…", a host named "api"); clients that load the document by URL (Swagger UI, schemathesis)
    # use its path, "/", on the address they loaded it from.
    result["servers"] = [{"url": settings.PUBLIC_BASE_URL, "description": "This service."}]
    with translation.override("en"):  # the operator's pages, which name who runs the service
        result["info"].update(
            contact={"name": "The operator's imprint", "url": settings.PUBLIC_BASE_URL + reverse("imprint")},
            termsOfService=settings.PUBLIC_BASE_URL + reverse("terms"),
        )
    components = result.setdefault("components", {})
    components.setdefault("schemas", {}).update(
        {"Problem": PROBLEM_SCHEMA, "LegacyError": LEGACY_ERROR_SCHEMA}
    )
    components.setdefault("headers", {}).update(HEADERS)
    for path, item in result.get("paths", {}).items():
        if not path.startswith("/api"):
            continue
        for method, operation in item.items():
            if method in HTTP_METHODS:
                _add_responses(path, operation)
    for item in result.get("webhooks", {}).values():
        for operation in item.values():
            # no credentials: its receiver checks the `webhook-signature` its description explains
            operation.setdefault("security", [{}])
    used = {
        tag
        for item in result.get("paths", {}).values()
        for operation in item.values()
        for tag in operation.get("tags", [])
    }
    result["tags"] = [{"name": name, "description": text} for name, text in TAGS.items() if name in used]
    return result


def _add_responses(path: str, operation: dict) -> None:
    responses = operation.setdefault("responses", {})
    # A surface of its own (the agent endpoint) has declared its 500 in its own error format already.
    content = responses["500"]["content"] if "500" in responses else _surface_content(path)
    has_body = "requestBody" in operation
    if operation.get("parameters") or has_body:
        responses.setdefault("400", _error("Invalid request: the error names each field.", content))
    if any(requirement for requirement in operation.get("security", [])):  # a token is required
        responses.setdefault(
            "401", _error("No token, or an unknown, expired or revoked one.", content, ("WWW-Authenticate",))
        )
        responses.setdefault(
            "403", _error("The token lacks the required scope.", content, ("WWW-Authenticate",))
        )
    # Domain failures an operation declares with extend_schema(extensions={"x-error-statuses": […]}),
    # by status (described by the first code of that status), by code, or as (code, status) where a
    # code answers with another status than its own.
    titles: dict[int, list[str]] = {}
    for declared in operation.pop("x-error-statuses", []):
        status, title = _declared_error(declared)
        titles.setdefault(status, []).append(title)
    for status, named in titles.items():
        responses.setdefault(str(status), _error(" / ".join(named) + ".", content))
    if _is_rest(path):
        responses.setdefault("405", _error(METHOD_NOT_ALLOWED, content, ("Allow",)))
        responses.setdefault("406", _error(NOT_ACCEPTABLE, content))
        if has_body:
            responses.setdefault("415", _error(UNSUPPORTED_MEDIA_TYPE, content))
    if has_body:
        responses.setdefault("413", _error(request_too_large(), content))
    responses.setdefault("414", _error(URI_TOO_LONG, content))
    for parameter in operation.get("parameters", []):
        if parameter.get("in") == "query" and parameter.get("schema", {}).get("type") == "array":
            # one value per name: a list is a,b,c (or a|b|c where its items hold commas)
            piped = parameter["schema"].pop(PIPE_DELIMITED, False)
            parameter.update(style="pipeDelimited" if piped else "form", explode=False)
    responses.setdefault("429", _error("Rate limit exceeded.", content, ("Retry-After",)))
    responses.setdefault("500", _error("Internal error (no details are disclosed).", content))
    # More causes of a status, in words: extensions={"x-error-notes": {500: "…"}}.
    for status, note in operation.pop("x-error-notes", {}).items():
        responses[str(status)]["description"] += " " + note
    for status, response in responses.items():
        headers = response.setdefault("headers", {})
        headers.update({name: _ref("headers", name) for name in ("RateLimit", "RateLimit-Policy")})
        if operation.get("deprecated"):  # apikit.deprecation.DeprecatedView sends them on every answer
            headers.update({name: _ref("headers", name) for name in DEPRECATION_HEADERS})
        if status.startswith("2") and _replays(operation):
            headers["Idempotent-Replayed"] = _ref("headers", "Idempotent-Replayed")
    operation["responses"] = dict(sorted(responses.items()))  # by status, as readers look them up


def _replays(operation: dict) -> bool:
    """Whether the operation takes an Idempotency-Key, whose retries it answers with the first answer."""
    return any(
        parameter.get("in") == "header" and parameter.get("name") == "Idempotency-Key"
        for parameter in operation.get("parameters", [])
    )
