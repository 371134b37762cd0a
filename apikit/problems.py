"""Errors in one place (docs/decisions.md §8): every failure is classified once into a `Problem`, then written
as problem+json (RFC 9457) on /api/v1 or as the legacy `{"error": …}` body elsewhere under /api/."""

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from rest_framework import exceptions as drf
from rest_framework import serializers

from apikit.errors import DomainError
from apikit.operations import wire_name

logger = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"
V1_PREFIX = "/api/v1"
REQUEST_FORMAT_HINT = "Send JSON (or query parameters) as /openapi.json describes the operation."
DATABASE_DOWN = "The service's database is unavailable; retry in a minute."
COMPACT = {"separators": (",", ":"), "ensure_ascii": False}  # the same bytes DRF's renderer writes
# What of a caller's own input an error quotes back.
ECHO_LIMIT = 100  # characters of a name (a field, a method, a tool, a header value)
MAX_MESSAGE_LENGTH = 300
MAX_FIELD_ERRORS = 20


@dataclass(frozen=True)
class ProblemKind:
    status: int
    title: str
    hint: str
    # The hint an MCP tool's caller (a model) reads where `hint` names a REST path, method or header: the
    # tool to call next instead.
    tool_hint: str | None = None


# Every code the API can answer with, its HTTP status and a default hint for the caller's next step.
PROBLEM_KINDS: dict[str, ProblemKind] = {
    "invalid_request": ProblemKind(
        400, "Invalid request", "Correct the fields listed in `errors` and retry."
    ),
    "request_too_large": ProblemKind(
        413,
        "Request too large",
        "Send a smaller body: /openapi.json gives each field's limit.",
        "Send a smaller message: the tool's inputSchema gives each argument's limit.",
    ),
    "uri_too_long": ProblemKind(
        414, "URI too long", "Send long text in fewer or shorter query parameters, or in a request body."
    ),
    "unauthorized": ProblemKind(
        401,
        "Unauthorized",
        "Send `Authorization: Bearer <token>`; tokens are issued by the operator.",
        "The connection's token is missing, unknown, expired or revoked: sign in again, or configure a token "
        "the operator issued.",
    ),
    "insufficient_scope": ProblemKind(
        403, "Insufficient scope", "Ask the operator for a token that carries the required scope."
    ),
    "not_found": ProblemKind(
        404,
        "Not found",
        "GET /api/v1 lists every operation of this API.",
        "Check the reference: booking.list_bookings lists the bookings this token opens; one another token "
        "made also needs the traveller's `email` as given when booking.",
    ),
    "rate_limited": ProblemKind(
        429,
        "Too many requests",
        "Wait the number of seconds in the Retry-After header, then retry.",
        "Wait the `retryAfter` seconds, then make the same call again.",
    ),
    "route_not_found": ProblemKind(
        422,
        "Route not found",
        "Check both addresses, or pick them from the /api/v1/places suggestions.",
        "Check both addresses, or pick them from places.autocomplete's suggestions (with their placeId).",
    ),
    "upstream_unavailable": ProblemKind(503, "Upstream service unavailable", "Retry in a minute."),
    # 400 as DECISIONS §4 fixes it, though no schema can list the tours (they are data)
    "unknown_tour": ProblemKind(400, "Unknown tour", "Use the slug of a tour the operator offers."),
    "lead_time": ProblemKind(
        400,
        "Pickup time not available",
        "Choose a pickup at or after `earliestPickup` (/api/v1/availability).",
        "Choose a pickup at or after `earliestPickup` (booking.check_availability checks a time).",
    ),
    "hire_too_short": ProblemKind(
        400,
        "Hire too short for the route",
        "Book at least `minimumHours` hours, or book the ride by distance (bookingType `distance`).",
    ),
    "outside_tour_area": ProblemKind(
        400,
        "Outside the tour's area",
        "Choose a pickup and drop-off within the tour's area, or book the ride by distance.",
    ),
    "vehicle_too_small": ProblemKind(
        400,
        "Vehicle class too small",
        "Choose one of `fittingClasses`; when it is empty, ask staff for a quote (several cars or a larger "
        "vehicle): POST /api/v1/quote-requests, or the MCP tool booking.request_quote.",
        "Choose one of `fittingClasses`; when it is empty, call booking.request_quote to ask staff for a "
        "quote (several cars or a larger vehicle).",
    ),
    "unknown_extra": ProblemKind(
        400,
        "Unknown extra",
        "Use the code of an extra offered in that class (GET /api/v1/extras).",
        "Use the code of an extra offered in that class (booking.list_extras lists them).",
    ),
    "too_many_extras": ProblemKind(
        400,
        "Too many extras",
        "Ask for no more pieces than the class allows (GET /api/v1/extras) and no more child seats than "
        "passengers.",
        "Ask for no more pieces than the class allows (booking.list_extras: `maxima`) and no more child "
        "seats than passengers.",
    ),
    "too_many_stops": ProblemKind(
        400,
        "Too many stops",
        "Make at most `maximumStops` stops on the way in that class (0: none), or book the rest as rides of "
        "their own.",
    ),
    "amount_mismatch": ProblemKind(
        400, "Amount mismatch", "Send the amount the server computed (`expectedAmount`), in EUR cents."
    ),
    "idempotency_key_reused": ProblemKind(
        422,
        "Idempotency-Key reused",
        "Send a new Idempotency-Key for a different request; reuse a key only to retry the same one.",
    ),
    "idempotency_conflict": ProblemKind(
        409,
        "Request in progress",
        "A request with this Idempotency-Key is still running: retry in a moment.",
        "The same call is still running: make it again in a moment, and it answers what the first one made.",
    ),
    "invalid_phone": ProblemKind(
        400,
        "Not a phone number",
        "Send a number the chauffeur can call: E.164 (+436641234567) or as dialled in Austria; premium-rate, "
        "shared-cost and international-network numbers are refused.",
    ),
    "text_messages_unavailable": ProblemKind(
        400,
        "No text messages to this number",
        "Send textMessages false, or a mobile number of a country the operator texts (named in the detail).",
    ),
    "idempotency_key_spent": ProblemKind(
        409,
        "Booking no longer payable",
        "The booking this Idempotency-Key made is cancelled, expired or its payment failed: send a new "
        "Idempotency-Key to book the ride again.",
    ),
    "not_cancellable": ProblemKind(
        409,
        "Booking cannot be cancelled",
        "Its state or the pickup time no longer allows it; contact the operator about this booking.",
    ),
    "not_changeable": ProblemKind(
        409,
        "Booking cannot be changed",
        "Its state, its pickup being near or past, its assigned car or its chauffeur having set off no "
        "longer allows this change; contact the operator about this booking.",
    ),
    "stale_change_quote": ProblemKind(
        409,
        "Change quote no longer valid",
        "Ask for a new change quote (POST /api/v1/bookings/{reference}/change-quotes) and make it within "
        "10 minutes.",
        "Call booking.quote_change again and pass the new quote's `id` to booking.change_booking within 10 "
        "minutes.",
    ),
    "account_not_allowed": ProblemKind(
        403,
        "Not bookable on account",
        "Book with paymentMethod `checkout`, or ask the operator to tie your token to the company's account "
        "and list the traveller's e-mail address among its bookers.",
    ),
    "email_not_yours": ProblemKind(
        403,
        "Not the traveller's e-mail address",
        "A token that acts for a traveller books in their name: leave bookingData.email out, or send the "
        "address the token acts for.",
    ),
    "payment_provider_unavailable": ProblemKind(
        502, "Payment provider unavailable", "Retry later; the booking has been kept."
    ),
    "internal_error": ProblemKind(
        500, "Internal error", "Retry later; if it persists, contact the operator."
    ),
}


@dataclass(frozen=True)
class Problem:
    code: str
    detail: str
    status: int | None = None  # defaults to the code's status; 405/406/415 keep their own
    hint: str | None = None
    errors: dict[str, list[str]] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def kind(self) -> ProblemKind:
        return PROBLEM_KINDS[self.code]

    @property
    def http_status(self) -> int:
        return self.status or self.kind.status


def problem_type(code: str) -> str:
    return f"urn:chauffeur:problem:{code}"


def problem_body(problem: Problem, *, for_tools: bool = False) -> dict[str, object]:
    """The RFC 9457 members of a problem, as /api/v1 writes them (and MCP tool errors carry them, their
    hint in a model's words: `for_tools`)."""
    body: dict[str, object] = {
        "type": problem_type(problem.code),
        "title": problem.kind.title,
        "status": problem.http_status,
        "detail": problem.detail,
        "code": problem.code,
        "hint": problem.hint or (for_tools and problem.kind.tool_hint) or problem.kind.hint,
    }
    if problem.errors:
        body["errors"] = problem.errors
    body.update(problem.extra)
    return body


def problem_response(problem: Problem) -> JsonResponse:
    response = JsonResponse(
        problem_body(problem),
        status=problem.http_status,
        content_type=PROBLEM_CONTENT_TYPE,
        json_dumps_params=COMPACT,
    )
    return _with_headers(response, problem)


# The legacy endpoints know only plain 400s and 500s for these (section 7 of the interface document),
# whatever status /api/v1 gives them (a missing payment provider: 503 there, the contract's 500 here).
LEGACY_STATUS = {
    "route_not_found": 400,
    "lead_time": 400,
    "upstream_unavailable": 500,
    "payment_provider_unavailable": 500,
    "unknown_tour": 400,
}


def legacy_response(problem: Problem) -> JsonResponse:
    body = {"error": problem.detail, **problem.extra}
    if problem.code in LEGACY_STATUS:
        problem = replace(problem, status=LEGACY_STATUS[problem.code])
    elif problem.http_status == 422 and problem.code == "invalid_request":  # a tariff's rule on the data
        problem = replace(problem, status=400)
    return _with_headers(JsonResponse(body, status=problem.http_status, json_dumps_params=COMPACT), problem)


def is_api_path(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


def is_v1_path(path: str) -> bool:
    return path == V1_PREFIX or path.startswith(V1_PREFIX + "/")


# Paths with an error format of their own register its writer here: the agent endpoint's JSON-RPC errors.
SURFACE_WRITERS: dict[str, Callable[[Problem], HttpResponse]] = {}
# And those whose refusals before any view (the rate limiter's 401 and 429) read the request: the agent
# endpoint names the refused message's id.
EARLY_REFUSAL_WRITERS: dict[str, Callable[[HttpRequest, Problem], HttpResponse]] = {}


def answers_problems(path: str) -> bool:
    """Whether `path` answers its errors as problem+json: /api/v1, and the paths registered to do so."""
    return is_v1_path(path) or SURFACE_WRITERS.get(path) is problem_response


def response_for_path(path: str, problem: Problem) -> HttpResponse:
    """The error format of the surface that `path` belongs to."""
    if path in SURFACE_WRITERS:
        return SURFACE_WRITERS[path](problem)
    return problem_response(problem) if is_v1_path(path) else legacy_response(problem)


def early_refusal(request: HttpRequest, problem: Problem) -> HttpResponse:
    """A refusal made before any view runs, in the format of the surface the request's path belongs to."""
    writer = EARLY_REFUSAL_WRITERS.get(request.path_info)
    return writer(request, problem) if writer else response_for_path(request.path_info, problem)


def _with_headers(response: JsonResponse, problem: Problem) -> JsonResponse:
    for name, value in problem.headers.items():
        response[name] = value
    return response


def classify(exc: Exception, declaration: type[serializers.Serializer] | None = None) -> Problem:
    """The single mapping from an exception to what the caller is told. Unknown exceptions never leak.
    A domain error names a domain field; `declaration`, the operation's input, gives the caller's name."""
    if isinstance(exc, DomainError):
        if exc.field:
            field = wire_name(declaration, exc.field) if declaration else exc.field
            detail, errors = f"Invalid value for {field}: {exc.detail}", {field: [exc.detail]}
        else:
            detail, errors = exc.detail, None
        return Problem(exc.code, detail, status=exc.status, hint=exc.hint, errors=errors, extra=exc.extra)
    if isinstance(exc, drf.ValidationError):
        errors = bounded(flatten_errors(exc.detail))
        return Problem("invalid_request", _validation_summary(errors), errors=errors)
    if isinstance(exc, drf.MethodNotAllowed):
        return Problem(
            "invalid_request",
            str(exc.detail),
            status=405,
            hint="The Allow header lists the methods this path takes.",
        )
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        return Problem("unauthorized", str(exc.detail), headers=_challenge(exc))
    if isinstance(exc, drf.PermissionDenied | DjangoPermissionDenied):
        detail = str(getattr(exc, "detail", "")) or "Permission denied."
        return Problem("insufficient_scope", detail, headers=_challenge(exc))
    if isinstance(exc, drf.NotFound | Http404):
        return Problem("not_found", "No such resource.")
    if isinstance(exc, drf.Throttled):
        return Problem("rate_limited", "Rate limit exceeded.")
    if isinstance(exc, drf.APIException):  # malformed body, 406, 415 …
        return Problem("invalid_request", str(exc.detail), status=exc.status_code, hint=REQUEST_FORMAT_HINT)
    if isinstance(exc, RequestDataTooBig):  # a body sent without its length, read past the limit
        return Problem("request_too_large", "The request's body is too large.")
    if isinstance(exc, SuspiciousOperation):  # too many parameters, a bad Host header …
        return Problem(
            "invalid_request", "The request was refused as malformed or too large.", hint=REQUEST_FORMAT_HINT
        )
    if isinstance(exc, OperationalError | InterfaceError):  # the database is down or hung: not a bug
        logger.error("Database unavailable: %s", exc)
        return Problem("upstream_unavailable", DATABASE_DOWN)
    logger.exception("Unhandled error", exc_info=exc)
    return Problem("internal_error", "The server failed to handle this request.")


def _challenge(exc: Exception) -> dict[str, str]:
    """The WWW-Authenticate value an authentication or scope failure carries (see access.authentication)."""
    value = getattr(exc, "challenge", None)
    return {"WWW-Authenticate": value} if value else {}


def flatten_errors(detail: object, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail as `{field: [messages]}`, nested fields joined with dots."""
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for key, value in detail.items():
            name = prefix if key == "non_field_errors" else f"{prefix}.{key}" if prefix else str(key)
            for sub_key, messages in flatten_errors(value, name).items():
                flat.setdefault(sub_key, []).extend(messages)
        return flat
    if isinstance(detail, list) and detail and all(isinstance(item, dict | list) for item in detail):
        flat = {}
        for index, item in enumerate(detail):
            flat.update(flatten_errors(item, f"{prefix}[{index}]"))
        return flat
    leaves: list[object] = detail if isinstance(detail, list) else [detail]
    return {prefix or "request": [str(message) for message in leaves]}


def bounded(errors: dict[str, list[str]]) -> dict[str, list[str]]:
    """At most MAX_FIELD_ERRORS fields, names and messages clipped: a request with 50,000 unknown names or a
    megabyte-long one gets an answer of a few kilobytes, not its own size back."""
    kept = {
        clip(name): [clip(message, MAX_MESSAGE_LENGTH) for message in messages[:3]]
        for name, messages in list(errors.items())[:MAX_FIELD_ERRORS]
    }
    if len(errors) > MAX_FIELD_ERRORS:
        more = f"… and {len(errors) - MAX_FIELD_ERRORS} more fields with errors."
        kept.setdefault("request", []).append(more)
    return kept


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """A caller's string as an error may quote it."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _validation_summary(errors: dict[str, list[str]]) -> str:
    fields = [name for name in errors if name != "request"]
    if not fields:
        return "; ".join(message for messages in errors.values() for message in messages)
    if len(fields) == 1:
        return f"Invalid value for {fields[0]}: {errors[fields[0]][0]}"
    return "Invalid values for " + ", ".join(fields) + "."


def problem_exception_handler(exc: Exception, context: dict) -> HttpResponse:
    """DRF's EXCEPTION_HANDLER: the surface decides the format, the classification is shared."""
    request = context.get("request")
    problem = classify(exc, getattr(context.get("view"), "input_serializer", None))
    response = response_for_path(request.path if request else V1_PREFIX, problem)
    return response
