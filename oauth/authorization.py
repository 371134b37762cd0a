"""The answer to a consented (or refused) authorization request: the redirect back to the client with a
one-time code, or with access_denied; always with `state` and `iss` (RFC 9207)."""

import secrets
from collections.abc import Sequence
from datetime import timedelta

from authlib.common.urls import add_params_to_uri
from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from access.tokens import digest_of
from oauth import pending as pendings
from oauth import resources
from oauth.clients import client_of
from oauth.models import AuthorizationCode, OAuthGrant
from oauth.pending import PendingAuthorization


class NotApprovable(Exception):
    """The request cannot be approved as asked (client gone, nothing the staff member may grant)."""


def approve(
    request: HttpRequest, pending: PendingAuthorization, *, traveller_email: str = "", staff_user=None
) -> str:
    """Consent given by a traveller (their verified e-mail) or, for an agency, by a staff member limited
    to the client's agency scopes: the grant (reused when the same consent exists), a single-use code,
    and the redirect URL carrying it. The pending request is cleared."""
    client = client_of(pending.client_id)
    if client is None:
        raise NotApprovable("The client is unknown or blocked.")
    if traveller_email:
        subject, email, approver = OAuthGrant.Subject.TRAVELLER, traveller_email.strip().lower(), None
        scopes = sorted(pending.scopes)
    elif staff_user is not None and staff_user.is_active and staff_user.is_staff:
        subject, email, approver = OAuthGrant.Subject.AGENCY, "", staff_user
        scopes = sorted(set(pending.scopes) & set(client.agency_scopes))
    else:
        raise NotApprovable("A signed-in traveller or staff member must consent.")
    if not scopes:
        raise NotApprovable("None of the requested scopes may be granted.")
    code = secrets.token_urlsafe(32)
    with transaction.atomic():
        grant = OAuthGrant.objects.filter(
            client=client,
            subject=subject,
            traveller_email=email,
            resource=pending.resource,
            scopes=scopes,
            revoked_at__isnull=True,
        ).first() or OAuthGrant.objects.create(
            client=client,
            subject=subject,
            traveller_email=email,
            approved_by=approver,
            scopes=scopes,
            resource=pending.resource,
        )
        AuthorizationCode.objects.create(
            grant=grant,
            digest=digest_of(code),
            redirect_uri=pending.redirect_uri,
            code_challenge=pending.code_challenge,
            scopes=scopes,
            resource=pending.resource,
            expires_at=timezone.now() + timedelta(seconds=settings.OAUTH_CODE_SECONDS),
        )
    pendings.forget(request)
    return _redirect(pending, [("code", code)])


def deny(request: HttpRequest, pending: PendingAuthorization) -> str:
    pendings.forget(request)
    return _redirect(pending, [("error", "access_denied"), ("error_description", "The request was denied.")])


def error_redirect(redirect_uri: str, state: str, params: Sequence[tuple[str, str]]) -> str:
    """An authorization error's redirect (RFC 6749 §4.1.2.1) with the issuer (RFC 9207)."""
    return add_params_to_uri(redirect_uri, [*params, *_state(state), ("iss", resources.issuer())])


def _redirect(pending: PendingAuthorization, params: list[tuple[str, str]]) -> str:
    return error_redirect(pending.redirect_uri, pending.state, params)


def _state(state: str) -> list[tuple[str, str]]:
    return [("state", state)] if state else []
