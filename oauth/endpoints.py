"""The client-facing endpoints: /oauth/token and /oauth/revoke. Form-encoded requests, JSON answers with
Cache-Control: no-store (RFC 6749 §5.1); every refusal in OAuth's error format, never an HTML page."""

import base64
import binascii
import json
import logging
from collections.abc import Callable
from urllib.parse import unquote_plus

from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from oauth import issuing
from oauth.clients import client_of, is_confidential, secret_matches
from oauth.errors import InvalidClientError, InvalidRequestError, OAuth2Error
from oauth.models import OAuthClient
from sitekit.methods import allow

logger = logging.getLogger(__name__)

SINGLE = (
    "grant_type",
    "code",
    "redirect_uri",
    "code_verifier",
    "refresh_token",
    "scope",
    "resource",
    "client_id",
    "client_secret",
    "token",
    "token_type_hint",
)


FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")  # RFC 6749 asks for the first


def _wrong_method(request: HttpRequest, allowed: tuple[str, ...]) -> HttpResponse:
    response = _error(InvalidRequestError("Use POST with a form-encoded body.", status_code=405))
    response["Allow"] = ", ".join(allowed)
    return response


@allow("POST", refusal=_wrong_method)
@csrf_exempt  # clients authenticate with their own credentials, not cookies
def token(request: HttpRequest) -> HttpResponse:
    return _answer(request, _token)


@allow("POST", refusal=_wrong_method)
@csrf_exempt
def revoke(request: HttpRequest) -> HttpResponse:
    return _answer(request, _revoke)


def _token(request: HttpRequest, client: OAuthClient) -> HttpResponse:
    params = request.POST
    grant_type = params.get("grant_type", "")
    if grant_type == "authorization_code":
        issued = issuing.exchange_code(
            client=client,
            code=params.get("code", ""),
            redirect_uri=params.get("redirect_uri", ""),
            code_verifier=params.get("code_verifier", ""),
            resource=params.get("resource", ""),
        )
    elif grant_type == "refresh_token":
        issued = issuing.refresh(
            client=client,
            refresh_token=params.get("refresh_token", ""),
            scope=params.get("scope"),
            resource=params.get("resource", ""),
        )
    elif not grant_type:
        raise InvalidRequestError("grant_type is required.")
    else:
        raise OAuth2Error(
            "grant_type must be authorization_code or refresh_token.", error="unsupported_grant_type"
        )
    return _json(200, issued.response())


def _revoke(request: HttpRequest, client: OAuthClient) -> HttpResponse:
    plain = request.POST.get("token", "")
    if not plain:
        raise InvalidRequestError("token is required.")
    issuing.revoke_token(client=client, token=plain[:500])
    return _json(200, {})


def _answer(request: HttpRequest, handle: Callable[[HttpRequest, OAuthClient], HttpResponse]) -> HttpResponse:
    try:
        if request.content_type not in FORMS:
            raise InvalidRequestError("Send the parameters form-encoded (application/x-www-form-urlencoded).")
        repeated = [name for name in SINGLE if len(request.POST.getlist(name)) > 1]
        if repeated:
            raise InvalidRequestError(f"Each parameter at most once: {', '.join(repeated)} repeated.")
        return handle(request, _client(request))
    except OAuth2Error as refusal:
        return _error(refusal)
    except RequestDataTooBig:
        return _error(InvalidRequestError("The request is too large.", status_code=413))
    except DatabaseError:
        logger.exception("The OAuth endpoint %s could not reach the database", request.path)
        return _json(503, {"error": "temporarily_unavailable", "error_description": "Retry later."})
    except Exception:
        logger.exception("The OAuth endpoint %s failed", request.path)
        return _json(500, {"error": "server_error", "error_description": "Internal error; retry later."})


def _client(request: HttpRequest) -> OAuthClient:
    """The calling client (RFC 6749 §2.3): a public client names itself with client_id; one with a secret
    proves it with HTTP Basic (client_secret_basic) or in the body (client_secret_post), not both."""
    basic = _basic_credentials(request)
    posted_id, posted_secret = request.POST.get("client_id", ""), request.POST.get("client_secret", "")
    if basic and posted_secret:
        raise InvalidRequestError("Send the client secret once: in the Authorization header or the body.")
    if basic and posted_id and posted_id != basic[0]:
        raise InvalidRequestError("client_id differs from the one in the Authorization header.")
    client_id, secret = basic or (posted_id, posted_secret)
    status = 401 if basic else 400
    if not client_id:
        raise InvalidClientError("client_id is required.", status_code=401 if basic else 400)
    client = client_of(client_id)
    if client is None:
        raise InvalidClientError("The client is unknown or blocked.", status_code=status)
    if is_confidential(client):
        if not secret_matches(client, secret):
            raise InvalidClientError("Client authentication failed.", status_code=status)
    elif secret:
        raise InvalidClientError("This client is public: it has no secret to send.", status_code=status)
    return client


def _basic_credentials(request: HttpRequest) -> tuple[str, str] | None:
    scheme, _, value = request.META.get("HTTP_AUTHORIZATION", "").strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise InvalidClientError(
            "The Authorization header is not valid Basic credentials.", status_code=401
        ) from None
    client_id, sign, secret = decoded.partition(":")
    if not sign:
        raise InvalidClientError("The Authorization header is not valid Basic credentials.", status_code=401)
    return unquote_plus(client_id), unquote_plus(secret)


def _error(refusal: OAuth2Error) -> HttpResponse:
    status, body, headers = refusal()
    response = _json(status, body)
    for name, value in headers:
        if name.lower() != "content-type":
            response[name] = value
    return response


def _json(status: int, body: dict | None) -> HttpResponse:
    response = HttpResponse(
        b"" if body is None else json.dumps(body), status=status, content_type="application/json"
    )
    response["Cache-Control"] = "no-store"
    response["Pragma"] = "no-cache"
    return response
