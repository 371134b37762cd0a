"""Dynamic client registration (RFC 7591) at POST /oauth/register: public and confidential clients, the
refusals of §3.2.2 with nothing stored, a registration that cannot be replayed into anything but a new,
unrelated client, and the per-address budget that keeps a script from filling the table."""

import asyncio
import hashlib
import json

import httpx2
import pytest
from mcp.client.auth.utils import handle_registration_response

from oauth.models import OAuthClient
from tests.conftest import bearer

pytestmark = pytest.mark.django_db

REGISTER = "/oauth/register"
PUBLIC = {
    "client_name": "Claude Code",
    "redirect_uris": ["http://localhost:33418/callback"],
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
    "token_endpoint_auth_method": "none",
    "scope": "booking.write booking.read",
    "client_uri": "https://claude.example",
    "application_type": "native",
}


def register(client, metadata, **headers):
    body = metadata if isinstance(metadata, str) else json.dumps(metadata)
    return client.post(
        REGISTER, body, content_type=headers.pop("content_type", "application/json"), **headers
    )


def stored_clients() -> list[dict]:
    return list(OAuthClient.objects.order_by("pk").values())


def test_a_public_client_registers_without_a_secret(client):
    response = register(client, PUBLIC)
    assert response.status_code == 201, response.content
    document = response.json()
    assert document["client_id"].startswith("dyn_") and len(document["client_id"]) >= 4 + 32
    assert isinstance(document["client_id_issued_at"], int)
    assert "client_secret" not in document and "registration_access_token" not in document
    assert "registration_client_uri" not in document
    assert {key: document[key] for key in PUBLIC} == {**PUBLIC, "scope": "booking.read booking.write"}
    assert response["Cache-Control"] == "private, no-store"
    stored = OAuthClient.objects.get()
    assert (stored.client_id, stored.registration, stored.name) == (
        document["client_id"],
        "dynamic",
        "Claude Code",
    )
    assert (stored.redirect_uris, stored.client_uri, stored.secret_digest) == (
        PUBLIC["redirect_uris"],
        "https://claude.example",
        "",
    )
    assert stored.token_endpoint_auth_method == "none" and stored.metadata["application_type"] == "native"


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post", None])
def test_a_confidential_client_gets_its_secret_once_and_only_a_digest_is_kept(client, method):
    metadata = {"client_name": "Agency", "redirect_uris": ["https://agency.example/oauth/callback"]}
    if method:
        metadata["token_endpoint_auth_method"] = method
    document = register(client, metadata).json()
    secret = document["client_secret"]
    assert len(secret) >= 32 and document["client_secret_expires_at"] == 0
    assert document["token_endpoint_auth_method"] == (method or "client_secret_basic")  # RFC 7591's default
    stored = OAuthClient.objects.get()
    assert stored.secret_digest == hashlib.sha256(secret.encode()).hexdigest()
    assert all(secret not in json.dumps(value, default=str) for value in stored_clients()[0].values())


def test_the_mcp_python_sdk_accepts_the_answer(client):
    response = register(client, PUBLIC)
    answer = httpx2.Response(response.status_code, headers=dict(response.items()), content=response.content)
    info = asyncio.run(handle_registration_response(answer))
    assert info.client_id == response.json()["client_id"] and info.client_secret is None
    assert [str(uri) for uri in info.redirect_uris] == PUBLIC["redirect_uris"]


@pytest.mark.parametrize(
    "uri",
    [
        "http://127.0.0.1/callback",
        "http://127.0.0.1:61234/callback",
        "http://localhost:3000/cb",
        "http://[::1]:8080/cb",
        "https://app.example/oauth/callback?tenant=7",
    ],
)
def test_https_and_loopback_redirect_uris_are_accepted(client, uri):
    assert register(client, {**PUBLIC, "redirect_uris": [uri]}).status_code == 201
    assert OAuthClient.objects.get().redirect_uris == [uri]


@pytest.mark.parametrize(
    "uris",
    [
        None,
        [],
        "https://app.example/cb",
        ["http://app.example/cb"],  # plain http off the loopback
        ["https://app.example/cb#fragment"],
        ["https://user:secret@app.example/cb"],
        ["com.example.app:/callback"],  # MCP: https or localhost only
        ["javascript:alert(1)"],
        ["/relative/cb"],
        ["https://app.example:99999/cb"],
        [7],
        ["https://app.example/cb"] * 11,
        ["https://app.example/" + "x" * 2000],
    ],
)
def test_a_bad_redirect_uri_is_refused_and_nothing_is_stored(client, uris):
    metadata = (
        {**PUBLIC, "redirect_uris": uris}
        if uris is not None
        else {key: value for key, value in PUBLIC.items() if key != "redirect_uris"}
    )
    response = register(client, metadata)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_redirect_uri" and response.json()["error_description"]
    assert response["Cache-Control"] == "private, no-store"
    assert not OAuthClient.objects.exists()


@pytest.mark.parametrize(
    "changes",
    [
        {"grant_types": ["client_credentials"]},
        {"grant_types": ["implicit"]},
        {"grant_types": ["refresh_token"]},  # no way to get the first token
        {"grant_types": "authorization_code"},
        {"response_types": ["token"]},
        {"response_types": ["code", "id_token"]},
        {"token_endpoint_auth_method": "private_key_jwt"},
        {"token_endpoint_auth_method": "client_secret_jwt"},
        {"client_name": "x" * 201},
        {"client_name": 42},
        {"scope": "booking.read admin"},
        {"logo_uri": "http://claude.example/logo.png"},
        {"client_uri": "not a url"},
        {"tos_uri": "ftp://claude.example/tos"},
        {"application_type": "desktop"},
        {"contacts": "ops@claude.example"},
        {"contacts": ["x"] * 6},
        {"software_id": "x" * 201},
        {"jwks": {"keys": [{"kty": "oct", "k": "c2VjcmV0", "d": "private"}]}},
    ],
)
def test_bad_metadata_is_invalid_client_metadata_and_nothing_is_stored(client, changes):
    response = register(client, {**PUBLIC, **changes})
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "invalid_client_metadata" and response.json()["error_description"]
    assert not OAuthClient.objects.exists()


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ("{not json", "application/json"),
        ("[]", "application/json"),
        ('"a string"', "application/json"),
        (json.dumps(PUBLIC), "application/x-www-form-urlencoded"),
        (json.dumps({**PUBLIC, "client_name": "x" * 20_000}), "application/json"),
    ],
)
def test_a_body_that_is_no_json_object_is_refused(client, body, content_type):
    response = register(client, body, content_type=content_type)
    assert response.status_code == 400 and response.json()["error"] == "invalid_client_metadata"
    assert not OAuthClient.objects.exists()


def test_unsupported_fields_are_dropped_not_stored(client):
    document = register(client, {**PUBLIC, "software_statement": "eyJ.x.y", "extension": {"a": 1}}).json()
    assert "software_statement" not in document and "extension" not in document
    assert set(OAuthClient.objects.get().metadata) == set(PUBLIC)


def test_a_registration_cannot_be_replayed(client):
    """Posting the same registration again — a captured request replayed — yields a new, unrelated client:
    the server picks every client ID (a posted one is ignored), an ID is never issued twice, the first
    client's secret is neither shown again nor changed, and no registration access token exists that
    could read or alter a registration."""
    metadata = {
        **PUBLIC,
        "token_endpoint_auth_method": "client_secret_post",
        "client_id": "dyn_chosen",
        "client_secret": "chosen-secret",
    }
    first = register(client, metadata).json()
    digest = OAuthClient.objects.get().secret_digest
    second = register(client, metadata).json()

    assert first["client_id"] != second["client_id"] and first["client_secret"] != second["client_secret"]
    assert "dyn_chosen" not in (first["client_id"], second["client_id"])
    assert "chosen-secret" not in (first["client_secret"], second["client_secret"])
    assert OAuthClient.objects.count() == 2
    assert OAuthClient.objects.get(client_id=first["client_id"]).secret_digest == digest
    for answer in (first, second):
        assert not {"registration_access_token", "registration_client_uri"} & set(answer)
    # RFC 7592's management of a registration is not offered at any address
    assert client.get(f"{REGISTER}/{first['client_id']}").status_code == 404
    assert client.get(REGISTER).status_code == 405


def test_registration_has_its_own_budget_per_address(client, settings):
    settings.OAUTH_REGISTRATION_RATE_LIMIT = 2
    for _ in range(2):
        assert register(client, PUBLIC, REMOTE_ADDR="203.0.113.5").status_code == 201
    refused = register(client, PUBLIC, REMOTE_ADDR="203.0.113.5")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert refused.json()["error"] == "rate_limited" and refused.json()["error_description"]
    assert refused["RateLimit-Policy"] == '"registration";q=2;w=3600'
    assert OAuthClient.objects.count() == 2
    # a token does not buy more registrations; another address has its own budget
    assert register(client, PUBLIC, REMOTE_ADDR="203.0.113.5", **bearer("booking.write")).status_code == 429
    assert register(client, PUBLIC, REMOTE_ADDR="198.51.100.7").status_code == 201
    assert OAuthClient.objects.count() == 3


def test_the_default_budget_lets_a_hosted_assistants_shared_address_register_its_users_clients(client):
    for user in range(40):  # forty users of one hosted assistant connect within the hour, from one address
        metadata = {**PUBLIC, "client_name": f"Assistant for user {user}"}
        assert register(client, metadata, REMOTE_ADDR="203.0.113.20").status_code == 201
    assert OAuthClient.objects.count() == 40


def test_refused_registrations_do_not_spend_the_budget_and_have_a_budget_of_their_own(client, settings):
    settings.OAUTH_REGISTRATION_RATE_LIMIT = 2
    settings.OAUTH_REGISTRATION_FAILURE_RATE_LIMIT = 3
    bad = {**PUBLIC, "redirect_uris": ["http://evil.example/cb"]}
    for _ in range(3):  # a user's misconfigured client does not lock the others out
        refused = register(client, bad, REMOTE_ADDR="203.0.113.6")
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_redirect_uri"
    assert register(client, "{not json", REMOTE_ADDR="203.0.113.6").status_code == 429  # probing ends
    limited = register(client, bad, REMOTE_ADDR="203.0.113.6")
    assert limited.status_code == 429 and limited.json()["error"] == "rate_limited"
    assert limited["RateLimit-Policy"] == '"registration-failures";q=3;w=3600'
    assert not OAuthClient.objects.exists()
    for _ in range(2):  # the failures spent none of the successes' budget
        assert register(client, PUBLIC, REMOTE_ADDR="203.0.113.6").status_code == 201
    assert register(client, PUBLIC, REMOTE_ADDR="203.0.113.6").status_code == 429
    assert OAuthClient.objects.count() == 2


def test_a_browsers_preflight_does_not_spend_the_registration_budget(client, settings):
    settings.OAUTH_REGISTRATION_RATE_LIMIT = 1
    for _ in range(3):
        preflight = client.options(
            REGISTER, HTTP_ORIGIN="https://inspector.example", REMOTE_ADDR="203.0.113.9"
        )
        assert preflight.status_code == 204
    assert register(client, PUBLIC, REMOTE_ADDR="203.0.113.9").status_code == 201
    assert register(client, PUBLIC, REMOTE_ADDR="203.0.113.9").status_code == 429


def test_browsers_may_register_from_any_origin(client):
    preflight = client.options(
        REGISTER,
        HTTP_ORIGIN="https://inspector.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="content-type",
    )
    assert preflight.status_code == 200
    assert preflight["Access-Control-Allow-Origin"] == "https://inspector.example"
    assert "POST" in preflight["Access-Control-Allow-Methods"]
    assert not OAuthClient.objects.exists()
    response = register(client, PUBLIC, HTTP_ORIGIN="https://inspector.example")
    assert response.status_code == 201
    assert response["Access-Control-Allow-Origin"] == "https://inspector.example"
