"""Revoking a consent: its grant, every access token issued under it (on every worker at once: revoke_all
moves the shared token version) and its refresh tokens and codes. And what a traveller sees of their own
consents on their assistants page, and ends there."""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, Max, OuterRef, Q
from django.utils import timezone

from access import tokens
from access.models import ApiToken
from oauth import hosts
from oauth.models import AuthorizationCode, OAuthGrant, RefreshToken

logger = logging.getLogger(__name__)


def revoke_grant(grant: OAuthGrant, *, actor: str) -> None:
    """`actor` names who or what revoked it (a staff member, the client, replay detection) in the log."""
    with transaction.atomic():
        locked = OAuthGrant.objects.select_for_update().get(pk=grant.pk)
        now = timezone.now()
        if locked.revoked_at is None:
            OAuthGrant.objects.filter(pk=grant.pk).update(revoked_at=now)
            logger.info("OAuth grant %s revoked by %s", grant.pk, actor)
        grant.revoked_at = locked.revoked_at or now
        tokens.revoke_all(grant.access_tokens.all())
        grant.refresh_tokens.filter(used_at__isnull=True).update(used_at=now)
        grant.codes.filter(used_at__isnull=True).update(used_at=now)


@dataclass(frozen=True)
class AllowedAssistant:
    """What a traveller allowed one client (all their live grants to it together), as their page shows it."""

    client_pk: int
    name: str
    redirect_hosts: list[str]  # where its consents sent the traveller back to, in A-labels
    allowed_at: datetime
    last_used_at: datetime | None
    scopes: list[str]
    lapses_at: datetime | None  # access ends by itself then, unless the client renews it before
    renewable: bool  # a refresh token is left: each use of it moves lapses_at on


def allowed_assistants(*, email: str) -> list[AllowedAssistant]:
    """The clients a traveller (by their verified address) has live access for, the most recent first."""
    by_client: dict[int, list[OAuthGrant]] = {}
    for grant in _live_grants(email).select_related("client").order_by("-created_at"):
        by_client.setdefault(grant.client_id, []).append(grant)
    now = timezone.now()
    shown = []
    for grants in by_client.values():
        client = grants[0].client
        codes = AuthorizationCode.objects.filter(grant__in=grants).order_by("-expires_at")
        uris = list(codes.values_list("redirect_uri", flat=True)) or list(client.redirect_uris)
        access = ApiToken.objects.filter(grant__in=grants)
        live_access = access.filter(revoked_at__isnull=True, expires_at__gt=now)
        refreshes = RefreshToken.objects.filter(grant__in=grants, used_at__isnull=True, expires_at__gt=now)
        last_refresh = refreshes.aggregate(last=Max("expires_at"))["last"]
        ends = [
            moment
            for moment in (last_refresh, live_access.aggregate(last=Max("expires_at"))["last"])
            if moment is not None
        ]
        shown.append(
            AllowedAssistant(
                client_pk=client.pk,
                name=client.name or hosts.shown_host(client.client_id) or client.client_id,
                redirect_hosts=list(dict.fromkeys(host for uri in uris if (host := hosts.shown_host(uri)))),
                allowed_at=min(grant.created_at for grant in grants),
                last_used_at=access.aggregate(last=Max("last_used_at"))["last"],
                scopes=sorted({scope for grant in grants for scope in grant.scopes}),
                lapses_at=max(ends) if ends else None,
                renewable=last_refresh is not None,
            )
        )
    return shown


def end_assistant(*, email: str, client_pk: int) -> list[OAuthGrant]:
    """Revoke every live grant the traveller gave this client (its tokens and refresh tokens with them);
    the grants revoked, none when there was nothing left to end."""
    ended = list(_live_grants(email).filter(client_id=client_pk))
    for grant in ended:
        revoke_grant(grant, actor="the traveller on their assistants page")
    return ended


def _live_grants(email: str):
    """A traveller's grants that still open something: not revoked, and a refresh token, access token or
    code of theirs still usable (a grant whose refresh token ran out is over without being revoked)."""
    return OAuthGrant.objects.filter(
        _opens_something_after(timezone.now()),
        subject=OAuthGrant.Subject.TRAVELLER,
        traveller_email=email.strip().lower(),
        revoked_at__isnull=True,
    )


def _opens_something_after(moment: datetime, *, issued_since: datetime | None = None) -> Q:
    """A grant with a refresh token, access token or code usable after `moment` (or an access token issued
    since `issued_since`), one subquery per kind of token."""
    grant = OuterRef("pk")
    access = Q(revoked_at__isnull=True, expires_at__gt=moment)
    if issued_since is not None:
        access |= Q(created_at__gt=issued_since)
    return (
        Q(Exists(RefreshToken.objects.filter(grant=grant, used_at__isnull=True, expires_at__gt=moment)))
        | Q(Exists(ApiToken.objects.filter(access, grant=grant)))
        | Q(
            Exists(AuthorizationCode.objects.filter(grant=grant, used_at__isnull=True, expires_at__gt=moment))
        )
    )


def ended_before(moment: datetime):
    """Travellers' grants over before `moment` that still name their traveller: revoked by then, or given
    before it with nothing of theirs usable after it. Each access token comes with a refresh token that
    lasts OAUTH_REFRESH_TOKEN_DAYS, so a grant's last access token dates its end even once that refresh
    token's row is gone."""
    lifetime = timedelta(days=settings.OAUTH_REFRESH_TOKEN_DAYS)
    lapsed = Q(revoked_at__isnull=True, created_at__lt=moment) & ~_opens_something_after(
        moment, issued_since=moment - lifetime
    )
    return OAuthGrant.objects.exclude(traveller_email="").filter(
        Q(revoked_at__lt=moment) | lapsed, subject=OAuthGrant.Subject.TRAVELLER
    )


def forget_traveller(grant_pk: int) -> None:
    """An ended grant keeps its client and scopes but no longer its traveller's address, nor do its
    tokens (nothing of it opens anything: ended_before, or an erasure that ended it first)."""
    with transaction.atomic():
        grant = OAuthGrant.objects.select_for_update().get(pk=grant_pk)
        OAuthGrant.objects.filter(pk=grant_pk).update(traveller_email="")
        grant.traveller_email = ""
        ApiToken.objects.filter(grant_id=grant_pk).update(acts_for="", name=token_name(grant))


def token_name(grant: OAuthGrant) -> str:
    """An access token's name in the admin: its client and whom it acts for."""
    if grant.subject == OAuthGrant.Subject.AGENCY:
        whom = "the agency"
    else:
        whom = grant.traveller_email or "a former traveller"
    name = f"OAuth: {grant.client.name} for {whom}"
    max_length = ApiToken._meta.get_field("name").max_length
    assert max_length is not None  # noqa: S101  (a CharField's)
    return name if len(name) <= max_length else name[: max_length - 1] + "…"
