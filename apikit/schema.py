"""OpenAPI additions every /api/ operation shares: rate-limit headers on each response, 429, and the
error bodies of its surface (problem+json on /api/v1, `{"error": …}` on the legacy endpoints)."""

from apikit.field_schemas import PIPE_DELIMITED
from apikit.problems import PROBLEM_CONTENT_TYPE, PROBLEM_KINDS, answers_problems

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
}


# Long text in a query (500 characters of 4-byte UTF-8 are 6000 bytes percent-encoded) can exceed what
# gunicorn reads of a request line (its limit_request_line, 4094 bytes): refused before Django sees it.
URI_TOO_LONG = {
    "description": "The request line (method, path and query) is longer than 4094 bytes: refused by the web "
    "server before the service sees it, with a short HTML page. Send long text in fewer or shorter "
    "parameters."
}


def _ref(kind: str, name: str) -> dict:
    return {"$ref": f"#/components/{kind}/{name}"}


def _error(description: str, is_v1: bool, extra_headers: tuple[str, ...] = ()) -> dict:
    content = (
        {PROBLEM_CONTENT_TYPE: {"schema": _ref("schemas", "Problem")}}
        if is_v1
        else {"application/json": {"schema": _ref("schemas", "LegacyError")}}
    )
    response = {"description": description, "content": content}
    if extra_headers:
        response["headers"] = {name: _ref("headers", name) for name in extra_headers}
    return response


def _first_kind(status: int):
    return next(kind for kind in PROBLEM_KINDS.values() if kind.status == status)


def _declared_error(declared: int | str | tuple[str, int]) -> tuple[int, str]:
    if isinstance(declared, tuple):
        code, status = declared
        return status, PROBLEM_KINDS[code].title
    kind = PROBLEM_KINDS[declared] if isinstance(declared, str) else _first_kind(declared)
    return kind.status, kind.title


def add_shared_responses(result: dict, generator, request, public) -> dict:
    components = result.setdefault("components", {})
    components.setdefault("schemas", {}).update(
        {"Problem": PROBLEM_SCHEMA, "LegacyError": LEGACY_ERROR_SCHEMA}
    )
    components.setdefault("headers", {}).update(HEADERS)
    for path, item in result.get("paths", {}).items():
        if not path.startswith("/api"):
            continue
        is_v1 = answers_problems(path)
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            responses = operation.setdefault("responses", {})
            if operation.get("parameters") or operation.get("requestBody"):
                responses.setdefault("400", _error("Invalid request: the error names each field.", is_v1))
            if any(requirement for requirement in operation.get("security", [])):  # a token is required
                responses.setdefault("401", _error("No token, or an unknown, expired or revoked one.", is_v1))
                responses.setdefault("403", _error("The token lacks the required scope.", is_v1))
            # Domain failures an operation declares with extend_schema(extensions={"x-error-statuses": […]}),
            # by status (described by the first code of that status), by code, or as (code, status) where a
            # code answers with another status than its own.
            titles: dict[int, list[str]] = {}
            for declared in operation.pop("x-error-statuses", []):
                status, title = _declared_error(declared)
                titles.setdefault(status, []).append(title)
            for status, named in titles.items():
                responses.setdefault(str(status), _error(" / ".join(named) + ".", is_v1))
            if any(parameter.get("in") in ("query", "path") for parameter in operation.get("parameters", [])):
                responses.setdefault("414", URI_TOO_LONG)
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query" and parameter.get("schema", {}).get("type") == "array":
                    # one value per name: a list is a,b,c (or a|b|c where its items hold commas)
                    piped = parameter["schema"].pop(PIPE_DELIMITED, False)
                    parameter.update(style="pipeDelimited" if piped else "form", explode=False)
            responses.setdefault("429", _error("Rate limit exceeded.", is_v1, ("Retry-After",)))
            responses.setdefault("500", _error("Internal error (no details are disclosed).", is_v1))
            # More causes of a status, in words: extensions={"x-error-notes": {500: "…"}}.
            for status, note in operation.pop("x-error-notes", {}).items():
                responses[str(status)]["description"] += " " + note
            for response in responses.values():
                response.setdefault("headers", {}).update(
                    {name: _ref("headers", name) for name in ("RateLimit", "RateLimit-Policy")}
                )
    return result
