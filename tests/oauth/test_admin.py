"""The admin's OAuth clients and grants beside the static tokens: staff approve an agency's client by its
agency scopes, block a client (its grants revoked), revoke a grant (its tokens die on every worker: the
shared token version moves); the token list tells static from OAuth tokens and hides expired OAuth ones.
In German for German staff."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from access import tokens
from access.models import ApiToken
from oauth.models import OAuthClient, OAuthGrant, RefreshToken

pytestmark = pytest.mark.django_db
CLIENTS, GRANTS, TOKENS = "/admin/oauth/oauthclient/", "/admin/oauth/oauthgrant/", "/admin/access/apitoken/"
LONG_ID = "https://assistant.example/.well-known/oauth-client/" + "x" * 60


@pytest.fixture
def oauth_client(db) -> OAuthClient:
    return OAuthClient.objects.create(
        client_id=LONG_ID,
        registration=OAuthClient.Registration.METADATA_DOCUMENT,
        name="Trip Assistant",
        redirect_uris=["https://assistant.example/callback"],
    )


def grant_of(client: OAuthClient, **fields) -> OAuthGrant:
    values = {
        "client": client,
        "subject": OAuthGrant.Subject.TRAVELLER,
        "traveller_email": "anna@example.com",
        "scopes": ["booking.read", "booking.write"],
        "resource": "https://chauffeur.test/api/mcp",
    }
    return OAuthGrant.objects.create(**{**values, **fields})


def token_of(grant: OAuthGrant, *, expired: bool = False) -> ApiToken:
    _plain, prefix, digest = tokens.new_secret()
    moment = timezone.now() + (timedelta(minutes=-5) if expired else timedelta(hours=1))
    return ApiToken.objects.create(
        name=f"OAuth: {grant.client.name}",
        prefix=prefix,
        digest=digest,
        scopes=grant.scopes,
        expires_at=moment,
        grant=grant,
        acts_for=grant.traveller_email,
        audience=grant.resource,
    )


def refresh_of(grant: OAuthGrant) -> RefreshToken:
    return RefreshToken.objects.create(
        grant=grant, digest="r" * 64, expires_at=timezone.now() + timedelta(days=30)
    )


def test_the_client_list_shows_a_short_id_the_kind_and_live_grants(admin_client, oauth_client):
    grant_of(oauth_client)
    grant_of(oauth_client, revoked_at=timezone.now())
    html = admin_client.get(CLIENTS).content.decode()
    assert "Trip Assistant" in html and "client ID metadata document" in html
    assert f'title="{LONG_ID}"' in html and f">{LONG_ID}<" not in html and "…" in html
    assert re.search(r'<td class="field-live_grants">1</td>', html)
    assert "Add OAuth client" not in html  # clients register themselves


def test_agency_scopes_are_the_approval(admin_client, oauth_client):
    page = admin_client.get(f"{CLIENTS}{oauth_client.pk}/change/").content.decode()
    assert 'type="checkbox" name="agency_scopes" value="booking.read"' in page
    saved = admin_client.post(
        f"{CLIENTS}{oauth_client.pk}/change/", {"agency_scopes": ["booking.read"], "rate_limit": "120"}
    )
    assert saved.status_code == 302
    oauth_client.refresh_from_db()
    assert (oauth_client.agency_scopes, oauth_client.rate_limit) == (["booking.read"], 120)
    assert oauth_client.client_id == LONG_ID and oauth_client.name == "Trip Assistant"  # read-only


def test_a_new_rate_limit_reaches_the_live_tokens(admin_client, oauth_client):
    token = token_of(grant_of(oauth_client))
    admin_client.post(f"{CLIENTS}{oauth_client.pk}/change/", {"agency_scopes": [], "rate_limit": "30"})
    token.refresh_from_db()
    assert token.rate_limit == 30


def test_unticking_an_agency_scope_revokes_the_agency_grants_that_hold_it(admin_client, oauth_client):
    oauth_client.agency_scopes = ["booking.read", "booking.write"]
    oauth_client.save()
    wide = grant_of(
        oauth_client, subject="agency", traveller_email="", scopes=["booking.read", "booking.write"]
    )
    narrow = grant_of(oauth_client, subject="agency", traveller_email="", scopes=["booking.read"])
    traveller = grant_of(oauth_client)
    token = token_of(wide)
    answer = admin_client.post(
        f"{CLIENTS}{oauth_client.pk}/change/",
        {"agency_scopes": ["booking.read"], "rate_limit": ""},
        follow=True,
    )
    assert "held a scope no longer allowed: it is revoked" in answer.content.decode()
    for grant in (wide, narrow, traveller, token):
        grant.refresh_from_db()
    assert wide.revoked_at is not None and token.revoked_at is not None
    assert narrow.revoked_at is None and traveller.revoked_at is None  # a traveller's consent is theirs


def test_blocking_a_client_revokes_its_grants_and_tokens(
    admin_client, oauth_client, django_capture_on_commit_callbacks
):
    grant = grant_of(oauth_client)
    token, refresh = token_of(grant), refresh_of(grant)
    version = tokens.TOKENS.current()
    with django_capture_on_commit_callbacks(execute=True):
        answer = admin_client.post(
            CLIENTS, {"action": "block_selected", "_selected_action": [oauth_client.pk]}, follow=True
        )
    assert "Blocked; 1 grant revoked." in answer.content.decode()
    for row in (oauth_client, grant, token, refresh):
        row.refresh_from_db()
    assert oauth_client.blocked_at and grant.revoked_at and token.revoked_at and refresh.used_at
    assert tokens.TOKENS.current() != version  # moved: every worker forgets the revoked token at once
    admin_client.post(CLIENTS, {"action": "unblock_selected", "_selected_action": [oauth_client.pk]})
    oauth_client.refresh_from_db()
    grant.refresh_from_db()
    assert oauth_client.blocked_at is None and grant.revoked_at is not None  # unblocking revives nothing


def test_the_grant_list_and_revoke(admin_client, oauth_client, django_capture_on_commit_callbacks):
    grant = grant_of(oauth_client)
    other = grant_of(oauth_client, traveller_email="ben@example.com")
    token, refresh = token_of(grant), refresh_of(grant)
    html = admin_client.get(GRANTS).content.decode()
    assert "anna@example.com" in html and "booking.read, booking.write" in html and "api/mcp" in html
    with django_capture_on_commit_callbacks(execute=True):
        answer = admin_client.post(
            GRANTS, {"action": "revoke_selected", "_selected_action": [grant.pk]}, follow=True
        )
    assert "Revoked: Trip Assistant – anna@example.com." in answer.content.decode()
    for row in (grant, token, refresh, other):
        row.refresh_from_db()
    assert grant.revoked_at and token.revoked_at and refresh.used_at
    assert other.revoked_at is None
    assert not tokens.is_live(token)


def test_a_grant_page_is_read_only(admin_client, oauth_client):
    grant = grant_of(oauth_client)
    token_of(grant)
    page = admin_client.get(f"{GRANTS}{grant.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="_save"' not in html and "anna@example.com" in html
    assert re.search(r'field-live_tokens.*?<div class="readonly">1</div>', html, re.S)
    admin_client.post(f"{GRANTS}{grant.pk}/change/", {"traveller_email": "mallory@example.com"})
    grant.refresh_from_db()
    assert grant.traveller_email == "anna@example.com"


def test_the_token_list_tells_static_from_oauth_and_hides_expired_oauth_tokens(admin_client, oauth_client):
    grant = grant_of(oauth_client)
    live, expired = token_of(grant), token_of(grant, expired=True)
    static, _plain = tokens.issue_token(name="Hotel concierge", scopes=["booking.read"])
    old_static, _plain = tokens.issue_token(name="Old partner", scopes=["booking.read"], expires_in_days=1)
    ApiToken.objects.filter(pk=old_static.pk).update(expires_at=timezone.now() - timedelta(days=1))

    def listed(**query) -> set[str]:
        html = admin_client.get(TOKENS, query).content.decode()
        return set(re.findall(r"/admin/access/apitoken/(\d+)/change/", html))

    ids = lambda *rows: {str(row.pk) for row in rows}  # noqa: E731
    assert listed() == ids(live, static, old_static)
    assert listed(kind="static") == ids(static, old_static)
    assert listed(kind="oauth") == ids(live, expired)
    assert listed(kind="all") == ids(live, expired, static, old_static)
    assert listed(state="expired") == ids(expired, old_static)
    html = admin_client.get(TOKENS).content.decode()
    assert f"/admin/oauth/oauthgrant/{grant.pk}/change/" in html  # the grant a token belongs to


def test_an_oauth_token_cannot_be_edited(admin_client, oauth_client):
    token = token_of(grant_of(oauth_client))
    html = admin_client.get(f"{TOKENS}{token.pk}/change/").content.decode()
    assert 'name="scopes"' not in html and "anna@example.com" in html
    admin_client.post(
        f"{TOKENS}{token.pk}/change/", {"name": "x", "scopes": ["booking.write"], "rate_limit": "1"}
    )
    token.refresh_from_db()
    assert token.scopes == ["booking.read", "booking.write"] and token.rate_limit is None


def test_the_oauth_pages_in_german(admin_client, oauth_client):
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    grant = grant_of(oauth_client)
    index = admin_client.get("/admin/", **german).content.decode()
    assert "OAuth-Clients" in index and "OAuth-Freigaben" in index
    clients = admin_client.get(CLIENTS, **german).content.decode()
    assert (
        "Ausgewählte Clients sperren (widerruft ihre Freigaben)" in clients and "Aktive Freigaben" in clients
    )
    assert "Block the selected" not in clients
    change = admin_client.get(f"{CLIENTS}{oauth_client.pk}/change/", **german).content.decode()
    assert "Berechtigungen für die Agentur" in change and "Was das Personal entscheidet" in change
    grants = admin_client.get(GRANTS, **german).content.decode()
    assert "Ausgewählte Freigaben widerrufen" in grants and "E-Mail des Fahrgasts" in grants
    revoked = admin_client.post(
        GRANTS, {"action": "revoke_selected", "_selected_action": [grant.pk]}, follow=True, **german
    ).content.decode()
    assert "Widerrufen: Trip Assistant – anna@example.com." in revoked
    listing = admin_client.get(TOKENS, **german).content.decode()
    assert "statisch, und nicht abgelaufene OAuth-Tokens" in listing
