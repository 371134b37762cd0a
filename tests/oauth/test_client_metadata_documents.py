"""Client ID metadata documents: `client_of` fetches an https client ID's document (faked at the HTTP
boundary with `responses`), checks it, keeps it for its cache time, and refuses — storing nothing — what
the MCP authorization spec and the draft refuse, including addresses inside the server's own network."""

import json
from datetime import timedelta

import pytest
import requests
import responses
from django.utils import timezone

from oauth.clients import client_of
from oauth.models import OAuthClient

pytestmark = pytest.mark.django_db

URL = "https://app.example/oauth/client-metadata.json"
DOCUMENT = {
    "client_id": URL,
    "client_name": "Example MCP Client",
    "client_uri": "https://app.example",
    "logo_uri": "https://app.example/logo.png",
    "redirect_uris": ["http://127.0.0.1:3000/callback", "http://localhost:3000/callback"],
    "grant_types": ["authorization_code"],
    "response_types": ["code"],
    "token_endpoint_auth_method": "none",
}


@pytest.fixture
def debug(settings):
    """DEBUG: the host checks that need DNS are skipped (the tests have no resolver to ask)."""
    settings.DEBUG = True


@pytest.fixture
def web():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def serve(web, document=DOCUMENT, *, url=URL, status=200, content_type="application/json", headers=None):
    body = document if isinstance(document, str | bytes) else json.dumps(document)
    web.get(url, body=body, status=status, content_type=content_type, headers=headers or {})


# --- client IDs that are no URL ----------------------------------------------------------------------


def test_a_registered_client_comes_from_the_database_without_any_fetch(web):
    stored = OAuthClient.objects.create(client_id="dyn_abc", registration="dynamic", name="CLI")
    OAuthClient.objects.create(client_id="dyn_blocked", registration="dynamic", blocked_at=timezone.now())
    assert client_of("dyn_abc") == stored
    assert client_of("dyn_blocked") is None and client_of("dyn_unknown") is None
    assert len(web.calls) == 0


# --- documents ---------------------------------------------------------------------------------------


def test_a_document_becomes_a_client(debug, web):
    serve(web)
    before = timezone.now()
    client = client_of(URL)
    assert (client.client_id, client.registration, client.name) == (
        URL,
        "metadata_document",
        DOCUMENT["client_name"],
    )
    assert (client.redirect_uris, client.client_uri, client.logo_uri) == (
        DOCUMENT["redirect_uris"],
        "https://app.example",
        "https://app.example/logo.png",
    )
    assert client.token_endpoint_auth_method == "none" and client.secret_digest == ""
    assert client.metadata == DOCUMENT
    assert before <= client.metadata_fetched_at <= timezone.now()
    assert client.metadata_expires_at == client.metadata_fetched_at + timedelta(hours=1)
    (call,) = web.calls
    assert call.request.headers["Accept"] == "application/json"


def test_a_stored_document_is_used_until_it_expires_then_fetched_again(debug, web, settings):
    serve(web)
    first = client_of(URL)
    assert client_of(URL) == first and len(web.calls) == 1  # kept: no second fetch
    OAuthClient.objects.filter(pk=first.pk).update(metadata_expires_at=timezone.now() - timedelta(seconds=1))
    web.replace(
        responses.GET,
        URL,
        json={**DOCUMENT, "client_name": "Renamed", "redirect_uris": ["https://app.example/callback"]},
    )
    again = client_of(URL)
    assert len(web.calls) == 2 and again.pk == first.pk
    assert (again.name, again.redirect_uris) == ("Renamed", ["https://app.example/callback"])
    assert OAuthClient.objects.count() == 1


@pytest.mark.parametrize(
    ("cache_control", "seconds"),
    [
        ("max-age=60", 60),
        ("public, max-age=120", 120),
        ("max-age=999999", 3600),
        ("no-store", 0),
        ("no-cache", 0),
        ("private", 3600),
    ],
)
def test_the_cache_time_follows_cache_control_up_to_the_setting(debug, web, cache_control, seconds):
    serve(web, headers={"Cache-Control": cache_control})
    client = client_of(URL)
    assert client.metadata_expires_at - client.metadata_fetched_at == timedelta(seconds=seconds)


def test_the_setting_bounds_the_cache_time(debug, web, settings):
    settings.OAUTH_CLIENT_METADATA_SECONDS = 600
    serve(web)
    client = client_of(URL)
    assert client.metadata_expires_at - client.metadata_fetched_at == timedelta(seconds=600)


def test_a_blocked_document_client_stays_blocked_and_is_not_fetched(debug, web):
    OAuthClient.objects.create(
        client_id=URL, registration="metadata_document", name="Old", blocked_at=timezone.now()
    )
    serve(web)
    assert client_of(URL) is None
    assert len(web.calls) == 0 and OAuthClient.objects.get().name == "Old"


def test_http_on_the_loopback_is_only_for_debug(web, settings):
    local = "http://127.0.0.1:8765/client.json"
    serve(web, {**DOCUMENT, "client_id": local}, url=local)
    assert client_of(local) is None and len(web.calls) == 0  # not even taken for a document URL
    settings.DEBUG = True
    assert client_of(local).client_id == local


# --- refusals: None, nothing stored ---------------------------------------------------------------------

REFUSED_DOCUMENTS = {
    "another client_id": {**DOCUMENT, "client_id": "https://evil.example/client.json"},
    "client_id with a slash more": {**DOCUMENT, "client_id": URL + "/"},
    "no client_id": {key: value for key, value in DOCUMENT.items() if key != "client_id"},
    "no redirect_uris": {key: value for key, value in DOCUMENT.items() if key != "redirect_uris"},
    "empty redirect_uris": {**DOCUMENT, "redirect_uris": []},
    "plain http redirect": {**DOCUMENT, "redirect_uris": ["http://app.example/callback"]},
    "fragment redirect": {**DOCUMENT, "redirect_uris": ["https://app.example/cb#x"]},
    "no client_name": {key: value for key, value in DOCUMENT.items() if key != "client_name"},
    "private_key_jwt": {**DOCUMENT, "token_endpoint_auth_method": "private_key_jwt"},
    "client_secret_basic": {**DOCUMENT, "token_endpoint_auth_method": "client_secret_basic"},
    "client_secret_post": {**DOCUMENT, "token_endpoint_auth_method": "client_secret_post"},
    "implicit grant": {**DOCUMENT, "grant_types": ["implicit"]},
    "token response": {**DOCUMENT, "response_types": ["token"]},
    "http logo": {**DOCUMENT, "logo_uri": "http://app.example/logo.png"},
    "an array": [DOCUMENT],
    "not json": "{client_id:",
}


@pytest.mark.parametrize("document", REFUSED_DOCUMENTS.values(), ids=REFUSED_DOCUMENTS.keys())
def test_a_bad_document_is_refused(debug, web, document):
    serve(web, document)
    assert client_of(URL) is None
    assert len(web.calls) == 1 and not OAuthClient.objects.exists()


@pytest.mark.parametrize(
    "answer",
    [
        {"status": 404},
        {"status": 500},
        {"content_type": "text/html"},
        {"content_type": "text/plain"},
        {"document": json.dumps({**DOCUMENT, "padding": "x" * 65 * 1024})},
    ],
    ids=["404", "500", "html", "text", "over 64 KiB"],
)
def test_a_bad_answer_is_refused(debug, web, answer):
    serve(web, **answer)
    assert client_of(URL) is None and not OAuthClient.objects.exists()


def test_redirects_are_not_followed(debug, web):
    web.get(URL, status=302, headers={"Location": "https://elsewhere.example/client.json"})
    serve(web, {**DOCUMENT, "client_id": URL}, url="https://elsewhere.example/client.json")
    assert client_of(URL) is None
    assert [call.request.url for call in web.calls] == [URL] and not OAuthClient.objects.exists()


@pytest.mark.parametrize(
    "failure", [requests.ConnectTimeout(), requests.ReadTimeout(), requests.ConnectionError()]
)
def test_an_unreachable_document_is_refused(debug, web, failure):
    web.get(URL, body=failure)
    assert client_of(URL) is None and not OAuthClient.objects.exists()


def test_a_refused_refetch_leaves_the_stored_client_alone(debug, web):
    serve(web)
    stored = client_of(URL)
    OAuthClient.objects.filter(pk=stored.pk).update(metadata_expires_at=timezone.now() - timedelta(seconds=1))
    web.replace(responses.GET, URL, json={**DOCUMENT, "client_id": "https://evil.example/x.json"})
    before = OAuthClient.objects.values().get()
    assert client_of(URL) is None
    assert OAuthClient.objects.values().get() == before


@pytest.mark.parametrize(
    "client_id",
    [
        "https://app.example",  # no path
        "https://app.example/",
        "https://app.example/a/../client.json",
        "https://app.example/./client.json",
        "https://user:pw@app.example/client.json",
        "https://app.example/client.json#fragment",
        "https://app.example/" + "x" * 2000,
    ],
)
def test_a_client_id_url_breaking_the_drafts_rules_is_never_fetched(debug, web, client_id):
    web.get(client_id.split("#")[0], json={**DOCUMENT, "client_id": client_id})
    assert client_of(client_id) is None
    assert len(web.calls) == 0 and not OAuthClient.objects.exists()


@pytest.mark.parametrize(
    "client_id",
    [
        "https://127.0.0.1/client.json",
        "https://localhost/client.json",
        "https://10.0.0.8/client.json",
        "https://192.168.1.1/client.json",
        "https://172.16.0.1/client.json",
        "https://169.254.169.254/latest/meta-data",  # the cloud's metadata service
        "https://100.64.0.1/client.json",  # shared address space
        "https://0.0.0.0/client.json",
        "https://[::1]/client.json",
        "https://[fe80::1]/client.json",
        "https://[fd00::1]/client.json",
        "https://[::ffff:127.0.0.1]/client.json",
        "https://no-such-host.invalid/client.json",  # cannot be resolved
        "http://app.example/client.json",  # not https
    ],
)
def test_outside_debug_a_document_inside_the_servers_network_is_never_fetched(web, client_id):
    web.get(client_id, json={**DOCUMENT, "client_id": client_id})
    assert client_of(client_id) is None
    assert len(web.calls) == 0 and not OAuthClient.objects.exists()


def test_outside_debug_a_document_on_a_public_address_is_fetched(web):
    """The same check lets a global address through (an address literal: no resolver is needed)."""
    public = "https://93.184.215.14/oauth/client.json"
    serve(web, {**DOCUMENT, "client_id": public}, url=public)
    assert client_of(public).name == DOCUMENT["client_name"] and len(web.calls) == 1
