"""The authorization server's pages for people (docs/agents/oauth.md): /oauth/authorize and /oauth/consent.
The endpoints clients call are in endpoints.py."""

import logging

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseRedirectBase
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from oauth import authorization, hosts
from oauth import pending as pendings
from oauth.clients import client_of
from oauth.errors import OAuth2Error, UnverifiedRedirect
from oauth.models import OAuthClient
from oauth.requests import validate_authorization_request
from oauth.sign_in import ASSISTANTS_PATH
from oauth.travellers import forget_destination, signed_in_traveller
from sitekit.i18n import language_links
from sitekit.methods import allow, safe

logger = logging.getLogger(__name__)

SIGN_IN_PATH, CONSENT_PATH = "/oauth/sign-in", "/oauth/consent"
UNSAFE_SCHEMES = frozenset({"javascript", "data", "vbscript", "file", "blob"})


class ClientRedirect(HttpResponseRedirectBase):
    """A redirect to a client's registered URI, which may be a native app's own scheme (cursor://…)."""

    status_code = 302

    class _Schemes:
        def __contains__(self, scheme: str) -> bool:
            return scheme.lower() not in UNSAFE_SCHEMES

    allowed_schemes = _Schemes()  # type: ignore[assignment]  # Django only asks `scheme in allowed_schemes`


@never_cache
@safe
def authorize(request: HttpRequest) -> HttpResponse:
    """Validates the request and keeps it in the session for the consent page; refusals go back to the
    client, except when the client or its redirect URI is in doubt (then a page says so)."""
    try:
        _client, pending = validate_authorization_request(request.GET)
    except DatabaseError:
        logger.exception("The authorization request could not be checked")
        return error_page(
            request, _("This service is briefly unavailable. Please try again in a minute."), 503
        )
    except UnverifiedRedirect as reason:
        return error_page(request, str(reason))
    except OAuth2Error as refusal:
        # authlib lists a description or URI only when it has one: every value is a text
        params = [
            (name, value) for name, value in refusal.get_body() if name != "state" and value is not None
        ]
        return ClientRedirect(authorization.error_redirect(refusal.redirect_uri, refusal.state or "", params))
    pendings.keep(request, pending)
    forget_destination(request)
    if signed_in_traveller(request) or _staff(request):
        return redirect(CONSENT_PATH)
    return redirect(SIGN_IN_PATH)


@never_cache
@allow("GET", "HEAD", "POST")
def consent(request: HttpRequest) -> HttpResponse:
    """Who asks for what, on whose behalf; Allow or Deny. Framing is refused by the site-wide
    X-Frame-Options DENY and CSP frame-ancestors 'none' (config/settings.py)."""
    with translation.override(_language(request)):
        pending = pendings.pending_of(request)
        client = client_of(pending.client_id) if pending else None
        if pending is None or client is None:
            return error_page(
                request,
                _(
                    "There is no authorization request waiting for your consent. Start again from the "
                    "application that sent you here."
                ),
            )
        traveller, staff = signed_in_traveller(request), _staff(request)
        if not traveller and not staff:
            return redirect(SIGN_IN_PATH)
        if request.method == "POST":
            return _decide(request, pending, traveller=traveller, staff=staff)
        return _consent_page(request, client, pending, traveller=traveller, staff=staff)


def _decide(request: HttpRequest, pending, *, traveller: str | None, staff) -> HttpResponse:
    if request.POST.get("request") != pending.fingerprint():
        return error_page(
            request,
            _("This authorization request was replaced by another one. Start again from the application."),
        )
    decision = request.POST.get("decision")
    if decision == "deny":
        return ClientRedirect(authorization.deny(request, pending))
    if decision != "allow":
        return error_page(request, _("Choose Allow or Deny."))
    try:
        url = authorization.approve(
            request, pending, traveller_email=traveller or "", staff_user=None if traveller else staff
        )
    except authorization.NotApprovable:
        return error_page(request, _("This request cannot be approved as it stands."))
    return ClientRedirect(url)


def _consent_page(request: HttpRequest, client: OAuthClient, pending, *, traveller, staff) -> HttpResponse:
    if traveller:
        who, scopes = "traveller", pending.scopes
    else:
        scopes = sorted(set(pending.scopes) & set(client.agency_scopes))
        who = "agency" if scopes else "staff_without_scopes"
    context = {
        "client": client,
        "client_host": hosts.shown_host(client.client_uri) or hosts.shown_host(client.client_id),
        "redirect_host": hosts.shown_host(pending.redirect_uri) or pending.redirect_uri,
        "scopes": [scope_words(scope) for scope in scopes],
        "withheld": [scope_words(scope) for scope in sorted(set(pending.scopes) - set(scopes))],
        "who": who,
        "traveller": traveller,
        "staff_name": staff.get_username() if staff else "",
        "resource": pending.resource,
        "fingerprint": pending.fingerprint(),
        "refresh_days": settings.OAUTH_REFRESH_TOKEN_DAYS,
        "assistants_url": ASSISTANTS_PATH,
        "language_links": language_links(request),
    }
    response = render(request, "oauth/consent.html", context)
    # Chromium applies form-action to the redirect after a submission too: the client's origin must be
    # allowed, or the browser stops at our page instead of following the code back to the client.
    # The origin in A-labels: a header must be ASCII, or Django encodes it (RFC 2047) and browsers drop it.
    client_origin = hosts.origin(pending.redirect_uri)
    form_action = ["'self'", *([client_origin] if client_origin else [])]
    response._csp_update = {"form-action": form_action}  # type: ignore[attr-defined]  # django-csp reads it
    return response


def scope_words(scope: str) -> str:
    return {
        "booking.read": _("See prices, availability and addresses, and look up your bookings"),
        "booking.write": _("Book rides in your name and cancel your bookings"),
    }.get(scope, scope)


def error_page(request: HttpRequest, reason: str, status: int = 400) -> HttpResponse:
    with translation.override(_language(request)):
        response = render(request, "oauth/error.html", {"reason": reason}, status=status)
    response["Cache-Control"] = "no-store"
    return response


def _staff(request: HttpRequest):
    user = getattr(request, "user", None)
    return user if user is not None and user.is_active and user.is_staff else None


def _language(request: HttpRequest) -> str:
    chosen = request.GET.get("lang")
    return chosen if chosen in dict(settings.LANGUAGES) else translation.get_language()
