"""The whole hand-off with the Django test client: an assistant's authorization request, the traveller's
sign-in with the mailed code, the consent page in their name, and the code handed back to the assistant."""

import re

import pytest
from django.core import mail

from oauth.models import AuthorizationCode, OAuthGrant
from tests.oauth.conftest import BASE, REDIRECT, authorize_params, pkce, query_of
from tests.queued import run_pending_jobs

pytestmark = pytest.mark.django_db


def test_authorize_sign_in_consent_and_the_code_back(client, oauth_client):
    started = client.get("/oauth/authorize", authorize_params(pkce()[1]))
    assert started["Location"] == "/oauth/sign-in"
    page = client.get("/oauth/sign-in").content.decode()
    assert "Trip Assistant asks to act for you." in page

    assert client.post("/oauth/sign-in", {"step": "email", "email": "Anna@Example.com"}).status_code == 302
    run_pending_jobs()
    code = re.search(r"^\s+(\d{6})$", mail.outbox[-1].body, re.M).group(1)
    signed = client.post("/oauth/sign-in", {"step": "code", "code": code})
    assert signed["Location"] == "/oauth/consent"

    consent = client.get("/oauth/consent").content.decode()
    assert "anna@example.com" in consent and "Trip Assistant" in consent
    fingerprint = re.search(r'name="request" value="([^"]+)"', consent).group(1)
    allowed = client.post("/oauth/consent", {"request": fingerprint, "decision": "allow"})
    assert allowed.status_code == 302 and allowed["Location"].startswith(REDIRECT + "?")
    answer = query_of(allowed["Location"])
    assert answer["state"] == "xyz-state" and answer["iss"] == BASE and answer["code"]
    grant = OAuthGrant.objects.get()
    assert (grant.subject, grant.traveller_email) == ("traveller", "anna@example.com")
    assert AuthorizationCode.objects.filter(grant=grant, used_at__isnull=True).count() == 1


def test_a_wrong_code_never_reaches_consent(client, oauth_client):
    client.get("/oauth/authorize", authorize_params(pkce()[1]))
    client.post("/oauth/sign-in", {"step": "email", "email": "anna@example.com"})
    refused = client.post("/oauth/sign-in", {"step": "code", "code": "000000x"})
    assert refused.status_code == 200
    assert client.get("/oauth/consent")["Location"] == "/oauth/sign-in"
    assert not OAuthGrant.objects.exists()


def test_the_language_chosen_on_the_sign_in_page_carries_on_to_consent(client, oauth_client):
    client.get("/oauth/authorize", authorize_params(pkce()[1]))
    client.post("/oauth/sign-in?lang=de", {"step": "email", "email": "anna@example.com"})
    run_pending_jobs()
    code = re.search(r"^\s+(\d{6})$", mail.outbox[-1].body, re.M).group(1)
    assert (
        client.post("/oauth/sign-in?lang=de", {"step": "code", "code": code})["Location"] == "/oauth/consent"
    )
    consent = client.get("/oauth/consent", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="de">' in consent and "Trip Assistant bittet um Zugriff" in consent
    assert "Nicht anna@example.com? Mit einer anderen Adresse anmelden" in consent
    another = client.get("/oauth/sign-in?another=1").content.decode()
    assert 'id="email-form"' in another and "Trip Assistant" in another  # the request still waits
