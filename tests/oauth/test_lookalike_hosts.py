"""Clients that try to look like someone else: a redirect host in Cyrillic look-alike letters is kept and
shown in IDNA A-labels (punycode), the consent page's Content-Security-Policy stays ASCII on the wire
(an encoded header is one browsers ignore), and control or bidi characters are refused in any client
metadata with RFC 7591's invalid_client_metadata, storing nothing."""

import json

import pytest
import responses

from oauth.clients import client_of
from oauth.models import OAuthClient
from tests.oauth.conftest import authorize_params, pkce, query_of, sign_in_traveller
from tests.oauth.test_authorize import consent

pytestmark = pytest.mark.django_db

LOOKALIKE = "https://аррӏе.com/callback"  # Cyrillic а, р, р, ӏ, е
A_LABELS = "https://xn--80ak6aa92e.com/callback"
METADATA = {
    "client_name": "Apple Assistant",
    "redirect_uris": [LOOKALIKE],
    "token_endpoint_auth_method": "none",
    "client_uri": "https://аррӏе.com/about",
}


def register(client, metadata):
    return client.post("/oauth/register", json.dumps(metadata), content_type="application/json")


def registered_client(client) -> OAuthClient:
    response = register(client, METADATA)
    assert response.status_code == 201, response.content
    return OAuthClient.objects.get(client_id=response.json()["client_id"])


def test_a_lookalike_redirect_host_is_stored_and_answered_in_a_labels(client):
    response = register(client, METADATA)
    assert response.status_code == 201, response.content
    assert response.json()["redirect_uris"] == [A_LABELS]
    assert response.json()["client_uri"] == "https://xn--80ak6aa92e.com/about"
    stored = OAuthClient.objects.get()
    assert stored.redirect_uris == [A_LABELS] and stored.client_uri == "https://xn--80ak6aa92e.com/about"
    assert stored.metadata["redirect_uris"] == [A_LABELS]


def test_the_consent_page_shows_a_labels_and_its_csp_header_is_ascii_on_the_wire(client):
    stored = registered_client(client)
    sign_in_traveller(client)
    # the client may send the URI as it wrote it: it is the same address
    started = client.get(
        "/oauth/authorize", authorize_params(pkce()[1], client_id=stored.client_id, redirect_uri=LOOKALIKE)
    )
    assert started["Location"] == "/oauth/consent"
    page = client.get("/oauth/consent")
    text = page.content.decode()
    assert "xn--80ak6aa92e.com" in text and "аррӏе" not in text
    raw = page.serialize_headers()
    assert raw.isascii() and b"=?utf-8?" not in raw.lower()
    policy = page["Content-Security-Policy"]
    assert "form-action 'self' https://xn--80ak6aa92e.com;" in policy + ";"
    assert "frame-ancestors 'none'" in policy
    # and the code goes back to the A-label address, which the browser reaches as the same host
    answer = consent(client)
    assert answer.status_code == 302 and answer["Location"].startswith(A_LABELS + "?code=")


def test_the_code_is_exchanged_with_the_redirect_uri_in_either_form(client):
    stored = registered_client(client)
    sign_in_traveller(client)
    for sent in (LOOKALIKE, A_LABELS):
        verifier, challenge = pkce()
        client.get(
            "/oauth/authorize", authorize_params(challenge, client_id=stored.client_id, redirect_uri=sent)
        )
        code = query_of(consent(client)["Location"])["code"]
        issued = client.post(
            "/oauth/token",
            {
                "grant_type": "authorization_code",
                "code": code,
                "code_verifier": verifier,
                "redirect_uri": sent,
                "client_id": stored.client_id,
            },
        )
        assert issued.status_code == 200, issued.content


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("client_name", "Trip \u202eAssistant"),  # right-to-left override
        ("client_name", "Trip\u200eAssistant"),  # left-to-right mark
        ("client_name", "Trip\u200fAssistant"),  # right-to-left mark
        ("client_name", "Trip \u2066Assistant\u2069"),  # isolates
        ("client_name", "Trip\u200bAssistant"),  # zero-width space
        ("client_name", "Trip\nAssistant"),
        ("client_name", "Trip\x00Assistant"),
        ("client_uri", "https://assistant.example/\u202eabout"),
        ("redirect_uris", ["https://assistant.example/cb\u202e"]),
        ("software_id", "abc\u2067"),
        ("contacts", ["ops@assistant.example\u2028"]),
    ],
)
def test_control_and_bidi_characters_are_refused_and_nothing_is_stored(client, field, value):
    response = register(client, {**METADATA, "redirect_uris": [A_LABELS], "client_uri": "", field: value})
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["error"] == "invalid_client_metadata" and field in body["error_description"]
    assert not OAuthClient.objects.exists()


@pytest.mark.parametrize(
    "uri",
    [
        "https://exa%6dple.com/cb",
        "https://xn--.com/cb",
        "https://a.com;script-src/cb",
        "https://ex ample.com/",
    ],
)
def test_a_redirect_host_that_is_no_host_name_is_refused(client, uri):
    response = register(client, {**METADATA, "redirect_uris": [uri], "client_uri": ""})
    assert response.status_code == 400 and response.json()["error"] == "invalid_redirect_uri"
    assert not OAuthClient.objects.exists()


DOCUMENT_URL = "https://app.example/oauth/client.json"


def fetched_client(settings, **document):
    settings.DEBUG = True  # no resolver in the tests: the address checks that need one are skipped
    served = {
        "client_id": DOCUMENT_URL,
        "client_name": "Example Client",
        "token_endpoint_auth_method": "none",
    }
    with responses.RequestsMock() as web:
        web.get(DOCUMENT_URL, json={**served, **document})
        return client_of(DOCUMENT_URL)


def test_a_metadata_document_with_a_bidi_override_is_refused(settings):
    refused = fetched_client(
        settings, client_name="Example \u202eClient", redirect_uris=["http://127.0.0.1:3000/callback"]
    )
    assert refused is None and not OAuthClient.objects.exists()


def test_a_metadata_documents_lookalike_redirect_host_is_kept_in_a_labels(settings):
    assert fetched_client(settings, redirect_uris=[LOOKALIKE]).redirect_uris == [A_LABELS]
