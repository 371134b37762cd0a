"""The discovery documents and the registration endpoint (docs/agents/oauth.md, "Discovery and
registration"): thin doors over oauth/discovery.py and registration.py. The documents are public,
the same for everyone, readable from any origin (browser-based MCP clients read them) and cacheable for a
few minutes; registration answers in RFC 7591's JSON, never a page."""

import json
import logging

from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from apikit.clients import client_address
from apikit.problems import COMPACT, Problem, classify
from oauth import discovery, registration, registration_limits
from oauth.metadata_rules import MetadataError
from sitekit.methods import allow

logger = logging.getLogger(__name__)

DOCUMENT_MAX_AGE = 300  # seconds a client or proxy may keep a discovery document
MAX_REGISTRATION_BYTES = 16 * 1024
NO_STORE = "no-store"  # a registration answer may carry a client secret (RFC 7591 §3.2.1)


def _wrong_method(request: HttpRequest, allowed: tuple[str, ...]) -> HttpResponse:
    listed = ", ".join(allowed)
    response = oauth_error("invalid_request", f"Use {listed}.", status=405)
    response["Allow"] = listed
    return response


@allow("GET", "HEAD", "OPTIONS", refusal=_wrong_method)
def protected_resource(request: HttpRequest, resource: str) -> HttpResponse:
    return _document(request, lambda: discovery.protected_resource_metadata(resource))


@allow("GET", "HEAD", "OPTIONS", refusal=_wrong_method)
def authorization_server(request: HttpRequest) -> HttpResponse:
    return _document(request, discovery.authorization_server_metadata)


def _document(request: HttpRequest, build) -> HttpResponse:
    if request.method == "OPTIONS":
        return HttpResponse(status=204)  # a preflight is answered by apikit/cors.py before this view
    response = JsonResponse(build(), json_dumps_params=COMPACT)
    response["Cache-Control"] = f"public, max-age={DOCUMENT_MAX_AGE}"
    return response


@allow("POST", "OPTIONS", refusal=_wrong_method)
@csrf_exempt  # no cookies are read: a client posts its own description
def register(request: HttpRequest) -> HttpResponse:
    """Counted here, not by the rate limiter: successes and failures in budgets of their own per address
    (oauth/registration_limits.py)."""
    if request.method == "OPTIONS":
        return HttpResponse(status=204)
    address = client_address(request)
    try:
        registration_limits.require_room(address)
        try:
            registered = registration.register_client(metadata=_json_body(request), address=address)
        except MetadataError as refusal:
            registration_limits.count_failure(address)
            return oauth_error(refusal.error, refusal.description, status=400)
    except registration_limits.RegistrationLimited as spent:
        return _over_budget(spent)
    except DatabaseError as failure:  # never a 500: the API's classification of an outage
        return oauth_error_response(classify(failure))
    response = JsonResponse(registered.document, status=201, json_dumps_params=COMPACT)
    response["Cache-Control"], response["Pragma"] = NO_STORE, "no-cache"
    return response


def _over_budget(refusal: registration_limits.RegistrationLimited) -> HttpResponse:
    what = (
        "client registrations"
        if refusal.policy == registration_limits.SUCCESS_POLICY
        else "refused client registrations"
    )
    return oauth_error(
        "rate_limited",
        f"More than {refusal.limit} {what} from this address in {refusal.window} seconds; "
        f"retry in {refusal.retry_after} s.",
        status=429,
        headers=refusal.headers(),
    )


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
    format, on the OAuth endpoints registered in oauth/apps.py."""
    return oauth_error(problem.code, problem.detail, status=problem.http_status, headers=problem.headers)
