"""GET /oauth/authorize and /oauth/consent: validation, error page vs redirect, the pending request, the
consent of a traveller or of staff for an agency, and codes handed back with state and iss."""

import pytest
from django.contrib.auth.models import User

from oauth.models import AuthorizationCode, OAuthGrant
from oauth.pending import pending_of
from tests.oauth.conftest import (
    BASE,
    MCP,
    REDIRECT,
    V1,
    authorize_params,
    pkce,
    query_of,
    sign_in_traveller,
)

pytestmark = pytest.mark.django_db


def start(client, **changes):
    return client.get("/oauth/authorize", authorize_params(pkce()[1], **changes))


def test_a_valid_request_is_kept_and_a_stranger_is_sent_to_sign_in(client, oauth_client):
    response = start(client)
    assert response.status_code == 302 and response["Location"] == "/oauth/sign-in"
    pending = client.session["oauth.pending"]
    assert pending["client_id"] == "assistant-1" and pending["redirect_uri"] == REDIRECT
    assert pending["scopes"] == ["booking.read", "booking.write"] and pending["state"] == "xyz-state"
    assert pending["resource"] == MCP and len(pending["code_challenge"]) == 43
    assert "no-cache" in response["Cache-Control"] or "no-store" in response["Cache-Control"]


def test_a_signed_in_traveller_goes_straight_to_consent(client, oauth_client):
    sign_in_traveller(client)
    assert start(client)["Location"] == "/oauth/consent"


def test_absent_scope_and_resource_mean_both_scopes_on_the_agent_endpoint(client, oauth_client):
    start(client, scope=None, resource=None)
    assert client.session["oauth.pending"]["scopes"] == ["booking.read", "booking.write"]
    assert client.session["oauth.pending"]["resource"] == MCP


@pytest.mark.parametrize(
    "changes",
    [
        {"client_id": "nobody"},
        {"client_id": None},
        {"redirect_uri": "https://evil.example/callback"},
        {"redirect_uri": None},
        {"redirect_uri": REDIRECT + "/more"},
        {"redirect_uri": "http://127.0.0.1:33418/other"},
        {"redirect_uri": "http://localhost:33418/cb"},  # another loopback host is not the same URI
    ],
)
def test_an_unknown_client_or_redirect_uri_gets_a_page_never_a_redirect(client, oauth_client, changes):
    response = start(client, **changes)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html") and "Location" not in response
    assert b"oauth-error-reason" in response.content
    assert "oauth.pending" not in client.session


def test_a_blocked_client_gets_the_page(client, oauth_client):
    oauth_client.blocked_at = oauth_client.created_at
    oauth_client.save()
    assert start(client).status_code == 400


def test_a_loopback_redirect_may_name_another_port(client, oauth_client):
    response = start(client, redirect_uri="http://127.0.0.1:51234/cb")
    assert response.status_code == 302 and response["Location"] == "/oauth/sign-in"
    assert client.session["oauth.pending"]["redirect_uri"] == "http://127.0.0.1:51234/cb"


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"code_challenge": None}, "invalid_request"),
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge_method": None}, "invalid_request"),
        ({"code_challenge": "short"}, "invalid_request"),
        ({"scope": "booking.read admin"}, "invalid_scope"),
        ({"resource": "https://elsewhere.example/api/mcp"}, "invalid_target"),
        ({"resource": f"{BASE}/api/v2"}, "invalid_target"),
    ],
)
def test_other_errors_go_back_to_the_client_with_state_and_iss(client, oauth_client, changes, error):
    response = start(client, **changes)
    assert response.status_code == 302 and response["Location"].startswith(REDIRECT + "?")
    answer = query_of(response["Location"])
    assert answer["error"] == error and answer["error_description"]
    assert answer["state"] == "xyz-state" and answer["iss"] == BASE
    assert "oauth.pending" not in client.session


def test_the_v1_resource_is_accepted(client, oauth_client):
    start(client, resource=V1)
    assert client.session["oauth.pending"]["resource"] == V1


# --- consent ----------------------------------------------------------------------------------------


def test_consent_without_a_pending_request_is_a_friendly_page(client, db):
    sign_in_traveller(client)
    response = client.get("/oauth/consent")
    assert response.status_code == 400 and b"oauth-error-reason" in response.content


def test_consent_without_a_traveller_or_staff_sends_to_sign_in(client, oauth_client):
    start(client)
    assert client.get("/oauth/consent")["Location"] == "/oauth/sign-in"


def test_the_consent_page_names_client_scopes_and_traveller_and_cannot_be_framed(client, oauth_client):
    sign_in_traveller(client)
    start(client)
    response = client.get("/oauth/consent")
    page = response.content.decode()
    assert response.status_code == 200
    assert "Trip Assistant" in page and "assistant.example" in page and "anna@example.com" in page
    assert "Book rides in your name" in page and 'name="csrfmiddlewaretoken"' in page
    assert response["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
    assert "form-action 'self' https://assistant.example" in response["Content-Security-Policy"]
    assert "no-store" in response["Cache-Control"]


def test_the_consent_page_speaks_german(client, oauth_client):
    sign_in_traveller(client)
    start(client)
    page = client.get("/oauth/consent?lang=de").content.decode()
    assert "Erlauben" in page and "Ablehnen" in page


def consent(client, decision: str = "allow"):
    fingerprint = pending_of_client(client).fingerprint()
    return client.post("/oauth/consent", {"decision": decision, "request": fingerprint})


def pending_of_client(client):
    class Request:
        session = client.session

    return pending_of(Request)


def test_allow_returns_a_code_with_state_and_iss_and_stores_only_its_digest(client, oauth_client):
    sign_in_traveller(client, "Anna@Example.com")
    start(client)
    response = consent(client)
    assert response.status_code == 302 and response["Location"].startswith(REDIRECT + "?")
    answer = query_of(response["Location"])
    assert answer["state"] == "xyz-state" and answer["iss"] == BASE and len(answer["code"]) > 30
    grant = OAuthGrant.objects.get()
    assert grant.subject == "traveller" and grant.traveller_email == "anna@example.com"
    assert grant.scopes == ["booking.read", "booking.write"] and grant.resource == MCP
    code = AuthorizationCode.objects.get()
    assert code.digest != answer["code"] and len(code.digest) == 64 and code.used_at is None
    assert "oauth.pending" not in client.session
    # The same consent again reuses the grant.
    start(client)
    consent(client)
    assert OAuthGrant.objects.count() == 1 and AuthorizationCode.objects.count() == 2


def test_deny_returns_access_denied_and_creates_nothing(client, oauth_client):
    sign_in_traveller(client)
    start(client)
    answer = query_of(consent(client, "deny")["Location"])
    assert answer["error"] == "access_denied" and answer["state"] == "xyz-state" and answer["iss"] == BASE
    assert OAuthGrant.objects.count() == 0 and AuthorizationCode.objects.count() == 0


def test_a_consent_for_a_replaced_request_is_refused(client, oauth_client):
    sign_in_traveller(client)
    start(client)
    fingerprint = pending_of_client(client).fingerprint()
    start(client, state="another")
    response = client.post("/oauth/consent", {"decision": "allow", "request": fingerprint})
    assert response.status_code == 400 and OAuthGrant.objects.count() == 0


def test_consent_needs_csrf(oauth_client):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    sign_in_traveller(browser)
    start(browser)
    response = browser.post(
        "/oauth/consent", {"decision": "allow", "request": pending_of_client(browser).fingerprint()}
    )
    assert response.status_code == 403 and OAuthGrant.objects.count() == 0


def test_staff_approve_for_the_agency_within_its_agency_scopes(client, oauth_client):
    oauth_client.agency_scopes = ["booking.read"]
    oauth_client.save()
    staff = User.objects.create_user("maria", password="x", is_staff=True)
    client.force_login(staff)
    assert start(client)["Location"] == "/oauth/consent"
    page = client.get("/oauth/consent").content.decode()
    assert "maria" in page and "for the agency" in page and 'id="consent-withheld"' in page
    consent(client)
    grant = OAuthGrant.objects.get()
    assert grant.subject == "agency" and grant.scopes == ["booking.read"] and grant.approved_by == staff


def test_staff_without_agency_scopes_are_told_to_set_them_first(client, oauth_client):
    client.force_login(User.objects.create_user("maria", password="x", is_staff=True))
    start(client)
    page = client.get("/oauth/consent").content.decode()
    assert "agency scopes" in page and 'id="allow"' not in page
    consent(client)
    assert OAuthGrant.objects.count() == 0


def test_a_native_apps_own_scheme_gets_its_code(client, oauth_client):
    app_uri = "cursor://anysphere.cursor-retrieval/oauth/callback"
    oauth_client.redirect_uris = [app_uri]
    oauth_client.save()
    sign_in_traveller(client)
    start(client, redirect_uri=app_uri)
    page = client.get("/oauth/consent")
    assert "form-action 'self' cursor:" in page["Content-Security-Policy"]
    response = consent(client)
    assert response.status_code == 302 and response["Location"].startswith(app_uri + "?code=")


def test_a_traveller_signed_in_as_staff_too_consents_as_the_traveller(client, oauth_client):
    oauth_client.agency_scopes = ["booking.read"]
    oauth_client.save()
    client.force_login(User.objects.create_user("maria", password="x", is_staff=True))
    sign_in_traveller(client)
    start(client)
    assert "anna@example.com" in client.get("/oauth/consent").content.decode()
    consent(client)
    grant = OAuthGrant.objects.get()
    assert grant.subject == "traveller" and grant.approved_by is None
    assert grant.scopes == ["booking.read", "booking.write"]
