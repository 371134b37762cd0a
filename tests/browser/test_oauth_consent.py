"""The OAuth consent page in a real Chromium against the live gunicorn: a staff member signed into the admin
approves an agency's client in German, the browser follows the code back to the client's page on another
origin (the CSP's form-action must allow that redirect), and the code is exchanged over real HTTP for a
token that lists the tools. Zero console errors, no CSP refusal, axe-clean."""

import base64
import hashlib
import json
import secrets
import sqlite3
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests

from tests.back_office import sign_in
from tests.browser.conftest import PHONE
from tests.processes import manage

STAFF, PASSWORD = "oauth-staff", "a-long-browser-test-password"
PHONE_360 = {**PHONE, "width": 360}


@pytest.fixture(scope="module")
def oauth_client(service, website) -> str:
    """An agency's client whose redirect URI is the operator's website (another origin), and a staff user."""
    redirect_uri = f"{website.base}/index.html"
    with sqlite3.connect(service.database) as database:
        database.execute(
            "INSERT INTO access_oauthclient (client_id, registration, name, redirect_uris, client_uri, logo_uri, "
            "token_endpoint_auth_method, secret_digest, metadata, created_at, agency_scopes) VALUES "
            "('agency-app', 'dynamic', 'Hotel Concierge', ?, 'https://concierge.example/about', '', 'none', '', "
            "'{}', '2026-01-01 00:00:00', '[\"booking.read\"]')",
            (json.dumps([redirect_uri]),),
        )
    created = manage(
        "createsuperuser",
        "--noinput",
        DJANGO_SETTINGS_MODULE="tests.browser.live_settings",
        DJANGO_SECRET_KEY="browser-test-secret-key-" + "x" * 40,
        DATABASE_URL=f"sqlite:///{service.database}",
        DJANGO_SUPERUSER_USERNAME=STAFF,
        DJANGO_SUPERUSER_EMAIL="staff@example.com",
        DJANGO_SUPERUSER_PASSWORD=PASSWORD,
    )
    assert created.returncode == 0, created.stderr
    return redirect_uri


def test_staff_approve_an_agency_client_in_german_and_the_code_buys_a_token(
    open_tab, service, oauth_client, axe
):
    tab = open_tab(locale="de-AT")
    page = tab.page
    sign_in(page, service.base, STAFF, PASSWORD)

    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = {
        "response_type": "code",
        "client_id": "agency-app",
        "redirect_uri": oauth_client,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "s-42",
        "scope": "booking.read booking.write",
    }
    page.goto(f"{service.base}/oauth/authorize?{urlencode(query)}")
    page.wait_for_url(f"{service.base}/oauth/consent")
    assert page.text_content("h1").strip() == "Hotel Concierge bittet um Zugriff"
    assert "concierge.example" in page.text_content("#client-host")
    assert "für die Agentur" in page.text_content("#consent-who") and STAFF in page.text_content(
        "#consent-who"
    )
    assert "Fahrten in Ihrem Namen buchen" in page.text_content("#consent-withheld")  # not an agency scope
    assert axe(page) == []
    tab.screenshot("oauth-consent-staff-de")

    page.click("#allow")
    page.wait_for_url(f"{oauth_client}?*")
    answer = {name: values[0] for name, values in parse_qs(urlsplit(page.url).query).items()}
    assert answer["state"] == "s-42" and answer["iss"] == service.base and answer["code"]
    assert tab.problems == []

    issued = requests.post(
        f"{service.base}/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": answer["code"],
            "code_verifier": verifier,
            "redirect_uri": oauth_client,
            "client_id": "agency-app",
        },
        timeout=10,
    )
    assert issued.status_code == 200 and issued.headers["Cache-Control"] == "private, no-store"
    assert issued.json()["scope"] == "booking.read"
    listed = requests.post(
        f"{service.base}/api/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Authorization": f"Bearer {issued.json()['access_token']}", "Accept": "application/json"},
        timeout=10,
    )
    assert listed.status_code == 200 and listed.json()["result"]["tools"]


def test_an_unknown_client_gets_the_error_page_in_english(open_tab, service):
    tab = open_tab()
    response = tab.page.goto(
        f"{service.base}/oauth/authorize?client_id=nobody&redirect_uri=https://evil.example/"
    )
    assert response.status == 400 and tab.page.url.startswith(service.base)
    assert "not known" in tab.page.text_content("#oauth-error-reason")
    # Chromium logs the page's own 400 status as a failed load; nothing else may appear.
    assert [problem for problem in tab.problems if "status of 400" not in problem] == []


def test_a_lookalike_redirect_host_is_shown_in_a_labels_under_an_ascii_policy(
    open_tab, service, oauth_client
):
    """A client stored before hosts were kept in A-labels (its row written as it came): the page shows the
    punycode host and its Content-Security-Policy arrives as plain ASCII, not MIME-encoded and ignored."""
    with sqlite3.connect(service.database) as database:
        database.execute(
            "INSERT INTO access_oauthclient (client_id, registration, name, redirect_uris, client_uri, logo_uri, "
            "token_endpoint_auth_method, secret_digest, metadata, created_at, agency_scopes) VALUES "
            "('lookalike-app', 'dynamic', 'Apple Helper', ?, '', '', 'none', '', '{}', '2026-01-01 00:00:00', "
            "'[\"booking.read\"]')",
            (json.dumps(["https://аррӏе.com/callback"], ensure_ascii=False),),
        )
    tab = open_tab(viewport=PHONE_360)
    page = tab.page
    sign_in(page, service.base, STAFF, PASSWORD)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(b"v" * 43).digest()).rstrip(b"=").decode()
    query = {
        "response_type": "code",
        "client_id": "lookalike-app",
        "redirect_uri": "https://аррӏе.com/callback",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "scope": "booking.read",
    }
    page.goto(f"{service.base}/oauth/authorize?{urlencode(query)}")
    page.wait_for_url(f"{service.base}/oauth/consent")
    response = page.reload()
    policy = response.headers["content-security-policy"]
    assert policy.isascii() and "=?utf-8?" not in policy.lower()
    assert "form-action 'self' https://xn--80ak6aa92e.com" in policy
    assert page.text_content("#redirect-host").strip() == "xn--80ak6aa92e.com"
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    tab.screenshot("oauth-consent-lookalike-360")
    assert tab.problems == []
