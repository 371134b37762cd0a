"""/oauth/assistants: a traveller signs in with the mailed code, as for a consent, and sees the assistants
they allowed (name, the A-label host it sends them back to, when allowed, last used, what it may do, how
long access lasts), and ends any of them: its grants, access tokens and refresh tokens stop; nobody
else's change. Linked from the consent page and the manage page."""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from access import tokens
from access.models import ApiToken
from booking import links
from oauth.models import AuthorizationCode, OAuthClient, OAuthGrant, RefreshToken
from tests.booking.conftest import make_booking  # noqa: F401
from tests.oauth.conftest import MCP, authorize_params, pkce, sign_in_traveller
from tests.queued import run_pending_jobs

pytestmark = pytest.mark.django_db

PAGE = "/oauth/assistants"


def allow(client_row: OAuthClient, email: str, *, scopes=("booking.read",), used=True, **grant) -> OAuthGrant:
    """A consent as the token endpoint leaves it: the grant, its used code, an access token, a refresh token."""
    made = OAuthGrant.objects.create(
        client=client_row,
        subject=grant.pop("subject", "traveller"),
        traveller_email=email,
        scopes=list(scopes),
        resource=MCP,
        **grant,
    )
    now = timezone.now()
    AuthorizationCode.objects.create(
        grant=made,
        digest=tokens.digest_of(f"code-{made.pk}"),
        redirect_uri=client_row.redirect_uris[0],
        code_challenge="c",
        scopes=list(scopes),
        resource=MCP,
        expires_at=now,
        used_at=now,
    )
    _, prefix, digest = tokens.new_secret()
    ApiToken.objects.create(
        name="OAuth",
        prefix=prefix,
        digest=digest,
        scopes=list(scopes),
        grant=made,
        acts_for=email,
        audience=MCP,
        expires_at=now + timedelta(hours=1),
        last_used_at=now - timedelta(minutes=5) if used else None,
    )
    RefreshToken.objects.create(
        grant=made, digest=tokens.digest_of(f"refresh-{made.pk}"), expires_at=now + timedelta(days=30)
    )
    return made


@pytest.fixture
def lookalike(db) -> OAuthClient:
    return OAuthClient.objects.create(
        client_id="dyn_lookalike",
        registration="dynamic",
        name="Apple Helper",
        redirect_uris=["https://xn--80ak6aa92e.com/callback"],
    )


def live_state(grant: OAuthGrant) -> tuple:
    grant.refresh_from_db()
    return (
        grant.revoked_at is None,
        grant.access_tokens.filter(revoked_at__isnull=True).count(),
        grant.refresh_tokens.filter(used_at__isnull=True).count(),
    )


def test_a_stranger_is_sent_to_the_sign_in_and_the_mailed_code_leads_back_here(client, oauth_client):
    allow(oauth_client, "anna@example.com")
    refused = client.get(PAGE + "?lang=de")
    assert refused.status_code == 302
    assert refused["Location"] == "/oauth/sign-in?next=%2Foauth%2Fassistants&lang=de"
    page = client.get(refused["Location"]).content.decode()
    assert 'id="for-assistants"' in page and 'id="asking"' not in page
    assert client.post(refused["Location"], {"step": "email", "email": "Anna@Example.com"}).status_code == 302
    run_pending_jobs()
    code = re.search(r"^\s+(\d{6})$", mail.outbox[-1].body, re.M).group(1)
    signed = client.post("/oauth/sign-in", {"step": "code", "code": code})
    assert signed["Location"] == PAGE
    listed = client.get(PAGE).content.decode()
    assert "Trip Assistant" in listed and "anna@example.com" in listed


def test_an_authorization_request_after_a_visit_signs_in_to_its_consent(client, oauth_client):
    client.get("/oauth/sign-in?next=/oauth/assistants")
    client.get("/oauth/authorize", authorize_params(pkce()[1]))
    client.post("/oauth/sign-in", {"step": "email", "email": "anna@example.com"})
    run_pending_jobs()
    code = re.search(r"^\s+(\d{6})$", mail.outbox[-1].body, re.M).group(1)
    assert client.post("/oauth/sign-in", {"step": "code", "code": code})["Location"] == "/oauth/consent"


def test_the_page_lists_what_the_traveller_allowed_and_nothing_of_anyone_else(
    client, oauth_client, lookalike
):
    allow(oauth_client, "anna@example.com", scopes=("booking.read", "booking.write"))
    allow(lookalike, "anna@example.com", used=False)
    allow(oauth_client, "ben@example.com")  # another traveller
    allow(lookalike, "", subject="agency")  # the agency's, approved by staff
    revoked = allow(oauth_client, "anna@example.com")
    OAuthGrant.objects.filter(pk=revoked.pk).update(revoked_at=timezone.now())
    sign_in_traveller(client)
    response = client.get(PAGE)
    page = response.content.decode()
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    assert page.count('class="cb-assistant"') == 2
    assistant = page[page.index(f'id="assistant-{oauth_client.pk}"') :]
    assert "Trip Assistant" in assistant and "assistant.example" in assistant
    assert "Book rides in your name" in assistant and "See prices, availability" in assistant
    assert "Until you end it. Unused, it ends by itself on" in assistant
    helper = page[page.index(f'id="assistant-{lookalike.pk}"') :]
    assert "xn--80ak6aa92e.com" in helper and "not yet" in helper
    assert "ben@example.com" not in page


def test_without_a_refresh_token_access_lasts_as_long_as_its_access_token(client, oauth_client):
    grant = allow(oauth_client, "anna@example.com")
    RefreshToken.objects.filter(grant=grant).update(used_at=timezone.now())
    sign_in_traveller(client)
    page = client.get(PAGE).content.decode()
    assert "Until you end it, at the latest on" in page and "each use renews" not in page


def test_a_grant_whose_refresh_token_ran_out_is_not_listed(client, oauth_client):
    grant = allow(oauth_client, "anna@example.com")
    ApiToken.objects.filter(grant=grant).update(expires_at=timezone.now() - timedelta(minutes=1))
    RefreshToken.objects.filter(grant=grant).update(expires_at=timezone.now() - timedelta(minutes=1))
    sign_in_traveller(client)
    assert 'id="no-assistants"' in client.get(PAGE).content.decode()


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # the token version moves on commit
def test_ending_an_assistant_stops_its_grants_and_tokens_and_nothing_else(oauth_client, lookalike):
    browser = Client(enforce_csrf_checks=True)
    first, second = allow(oauth_client, "anna@example.com"), allow(oauth_client, "anna@example.com")
    kept, other = allow(lookalike, "anna@example.com"), allow(oauth_client, "ben@example.com")
    access = ApiToken.objects.filter(grant=first).values_list("digest", flat=True).get()
    sign_in_traveller(browser)
    page = browser.get(PAGE).content.decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)

    without_csrf = browser.post(PAGE, {"assistant": oauth_client.pk})
    assert without_csrf.status_code == 403
    assert live_state(first) == live_state(second) == (True, 1, 1)

    ended = browser.post(PAGE, {"assistant": oauth_client.pk, "csrfmiddlewaretoken": csrf})
    assert ended.status_code == 302 and ended["Location"] == PAGE
    assert live_state(first) == live_state(second) == (False, 0, 0)
    assert live_state(kept) == live_state(other) == (True, 1, 1)
    assert ApiToken.objects.get(digest=access).revoked_at is not None
    after = browser.get(PAGE).content.decode()
    assert "Trip Assistant can no longer act for you." in after
    assert f'id="assistant-{oauth_client.pk}"' not in after and f'id="assistant-{lookalike.pk}"' in after


def test_another_travellers_assistant_cannot_be_ended_from_here(client, oauth_client):
    other = allow(oauth_client, "ben@example.com")
    sign_in_traveller(client)
    for chosen in (oauth_client.pk, "x", ""):
        assert client.post(PAGE, {"assistant": chosen}).status_code == 302
    assert live_state(other) == (True, 1, 1)
    assert "no access left to end" in client.get(PAGE).content.decode()


def test_the_page_speaks_german(client, oauth_client):
    allow(oauth_client, "anna@example.com")
    sign_in_traveller(client)
    page = client.get(PAGE + "?lang=de").content.decode()
    assert '<html lang="de">' in page and "Assistenten, denen Sie Zugriff gegeben haben" in page
    assert "Zugriff von <bdi>Trip Assistant</bdi> beenden" in page and "Zuletzt verwendet" in page


def test_the_consent_page_says_how_long_access_lasts_and_where_to_end_it(client, oauth_client, settings):
    settings.OAUTH_REFRESH_TOKEN_DAYS = 30
    sign_in_traveller(client)
    client.get("/oauth/authorize", authorize_params(pkce()[1]))
    page = client.get("/oauth/consent").content.decode()
    assert "does not use it for 30 days, it ends by itself" in page
    assert f'<a id="assistants-link" href="{PAGE}">Assistants you allowed</a>' in page
    german = client.get("/oauth/consent?lang=de").content.decode()
    assert "30 Tage" in german and f'href="{PAGE}"' in german


def test_the_manage_page_links_here_once(client, make_booking, settings):  # noqa: F811
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"
    booking = make_booking(email="anna@example.com")
    page = client.get(links.manage_url(booking.reference).removeprefix("https://chauffeur.test"))
    assert page.status_code == 200 and page.content.decode().count(f'href="{PAGE}"') == 1
