"""POST /oauth/token and /oauth/revoke through the Django client: the whole code flow with PKCE, refresh
rotation, replays that revoke the grant, and refusals in OAuth's JSON that change nothing."""

import base64
from datetime import timedelta

import pytest
from django.utils import timezone

from access import tokens
from access.models import ApiToken
from oauth.models import AuthorizationCode, OAuthClient, OAuthGrant, RefreshToken
from tests.mcp_endpoint.mcp import error_of, result_of, rpc
from tests.oauth.conftest import MCP, REDIRECT, V1, authorize_params, pkce, query_of, sign_in_traveller
from tests.oauth.test_authorize import consent

pytestmark = pytest.mark.django_db


def code_for(client, *, redirect_uri=REDIRECT, **changes) -> tuple[str, str]:
    """A code from the consent of a signed-in traveller, and its PKCE verifier."""
    verifier, challenge = pkce()
    sign_in_traveller(client)
    client.get("/oauth/authorize", authorize_params(challenge, redirect_uri=redirect_uri, **changes))
    return query_of(consent(client)["Location"])["code"], verifier


def exchange(client, the_code, verifier, **changes):
    headers = {name: changes.pop(name) for name in list(changes) if name.startswith("HTTP_")}
    body = {
        "grant_type": "authorization_code",
        "code": the_code,
        "code_verifier": verifier,
        "redirect_uri": REDIRECT,
        "client_id": "assistant-1",
        "resource": MCP,
        **changes,
    }
    return client.post("/oauth/token", {k: v for k, v in body.items() if v is not None}, **headers)


def refresh(client, refresh_token, **changes):
    body = {
        "grant_type": "refresh_token",
        "refresh_token": refresh_token,
        "client_id": "assistant-1",
        **changes,
    }
    return client.post("/oauth/token", {k: v for k, v in body.items() if v is not None})


def tokens_of(response) -> dict:
    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "private, no-store" and response["Content-Type"] == "application/json"
    return response.json()


def refusal(response, error: str, status: int = 400) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json" and response["Cache-Control"] == "private, no-store"
    body = response.json()
    assert body["error"] == error and body["error_description"]
    return body


def counts() -> tuple[int, int, int]:
    return (
        ApiToken.objects.count(),
        RefreshToken.objects.count(),
        OAuthGrant.objects.filter(revoked_at=None).count(),
    )


def tools_list(client, access_token: str):
    return rpc(client, {"HTTP_AUTHORIZATION": f"Bearer {access_token}"}, "tools/list")


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # the version moves on commit
def test_the_whole_flow_refresh_and_a_replayed_refresh_token_revoking_the_grant(client, oauth_client):
    code, verifier = code_for(client)
    issued = tokens_of(exchange(client, code, verifier))
    assert issued["token_type"] == "Bearer" and issued["expires_in"] == 3600
    assert issued["scope"] == "booking.read booking.write"
    assert issued["access_token"].startswith("cbt_") and issued["refresh_token"].startswith("cbr_")
    token = ApiToken.objects.get()
    assert (
        token.acts_for == "anna@example.com" and token.audience == MCP and token.grant.client == oauth_client
    )
    assert token.name == "OAuth: Trip Assistant for anna@example.com"
    assert timedelta(minutes=59) < token.expires_at - timezone.now() <= timedelta(hours=1)
    assert RefreshToken.objects.get().digest == tokens.digest_of(issued["refresh_token"])
    assert "tools" in result_of(tools_list(client, issued["access_token"]))

    renewed = tokens_of(refresh(client, issued["refresh_token"]))
    assert (
        renewed["refresh_token"] != issued["refresh_token"]
        and renewed["access_token"] != issued["access_token"]
    )
    assert "tools" in result_of(tools_list(client, renewed["access_token"]))
    assert RefreshToken.objects.filter(used_at__isnull=False).count() == 1

    # The old refresh token again: someone holds a copy, so the whole grant goes.
    refusal(refresh(client, issued["refresh_token"]), "invalid_grant")
    assert OAuthGrant.objects.get().revoked_at is not None
    assert not ApiToken.objects.filter(revoked_at=None).exists()
    error_of(tools_list(client, renewed["access_token"]), 401, -32010, request_id=1)
    error_of(tools_list(client, issued["access_token"]), 401, -32010, request_id=1)
    refusal(refresh(client, renewed["refresh_token"]), "invalid_grant")  # the new one died with it


def test_scope_may_narrow_on_refresh_but_never_widen(client, oauth_client):
    code, verifier = code_for(client, scope="booking.read")
    issued = tokens_of(exchange(client, code, verifier))
    assert issued["scope"] == "booking.read"
    before = counts()
    refusal(refresh(client, issued["refresh_token"], scope="booking.read booking.write"), "invalid_scope")
    assert counts() == before and RefreshToken.objects.get().used_at is None
    code, verifier = code_for(client)
    both = tokens_of(exchange(client, code, verifier))
    narrowed = tokens_of(refresh(client, both["refresh_token"], scope="booking.read"))
    assert narrowed["scope"] == "booking.read"
    assert ApiToken.objects.get(digest=tokens.digest_of(narrowed["access_token"])).scopes == ["booking.read"]


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"code_verifier": "x" * 43}, "invalid_grant"),  # the wrong verifier
        ({"code_verifier": None}, "invalid_request"),
        ({"redirect_uri": "https://assistant.example/other"}, "invalid_grant"),
        ({"redirect_uri": None}, "invalid_request"),
        ({"resource": V1}, "invalid_target"),
        ({"code": "not-a-code"}, "invalid_grant"),
        ({"grant_type": "password"}, "unsupported_grant_type"),
        ({"grant_type": None}, "invalid_request"),
    ],
)
def test_a_bad_exchange_issues_nothing_and_leaves_the_code_unused(client, oauth_client, changes, error):
    code, verifier = code_for(client)
    before = counts()
    refusal(exchange(client, code, verifier, **changes), error)
    assert counts() == before and AuthorizationCode.objects.get().used_at is None
    tokens_of(exchange(client, code, verifier))  # the rightful client still can


@pytest.mark.parametrize(
    ("changes", "status"),
    [({"client_id": None}, 400), ({"client_id": "nobody"}, 400), ({"client_secret": "guess"}, 400)],
)
def test_client_authentication_failures_are_invalid_client(client, oauth_client, changes, status):
    code, verifier = code_for(client)
    before = counts()
    refusal(exchange(client, code, verifier, **changes), "invalid_client", status)
    assert counts() == before


def test_a_code_of_another_client_is_invalid_grant(client, oauth_client):
    OAuthClient.objects.create(
        client_id="other", registration="dynamic", name="Other", redirect_uris=[REDIRECT]
    )
    code, verifier = code_for(client)
    refusal(exchange(client, code, verifier, client_id="other"), "invalid_grant")
    assert counts()[0] == 0


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # the version moves on commit
def test_a_replayed_code_is_refused_and_revokes_the_tokens_issued_from_it(client, oauth_client):
    code, verifier = code_for(client)
    issued = tokens_of(exchange(client, code, verifier))
    refusal(exchange(client, code, verifier), "invalid_grant")
    assert ApiToken.objects.count() == 1 and ApiToken.objects.get().revoked_at is not None
    assert OAuthGrant.objects.get().revoked_at is not None
    error_of(tools_list(client, issued["access_token"]), 401, -32010, request_id=1)
    refusal(refresh(client, issued["refresh_token"]), "invalid_grant")


def test_an_expired_code_is_refused(client, oauth_client):
    code, verifier = code_for(client)
    AuthorizationCode.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    refusal(exchange(client, code, verifier), "invalid_grant")
    assert counts()[:2] == (0, 0)


def test_the_loopback_port_of_the_code_must_be_the_one_sent_again(client, oauth_client):
    code, verifier = code_for(client, redirect_uri="http://127.0.0.1:49152/cb")
    refusal(exchange(client, code, verifier, redirect_uri="http://127.0.0.1:33418/cb"), "invalid_grant")
    tokens_of(exchange(client, code, verifier, redirect_uri="http://127.0.0.1:49152/cb"))


def test_a_confidential_client_authenticates_with_basic_or_post(client, oauth_client):
    oauth_client.secret_digest = tokens.digest_of("s3cret")
    oauth_client.save()
    code, verifier = code_for(client)
    refusal(exchange(client, code, verifier), "invalid_client")  # no secret
    basic = base64.b64encode(b"assistant-1:wrong").decode()
    refusal(
        exchange(client, code, verifier, client_id=None, HTTP_AUTHORIZATION=f"Basic {basic}"),
        "invalid_client",
        401,
    )
    assert counts()[0] == 0
    basic = base64.b64encode(b"assistant-1:s3cret").decode()
    tokens_of(exchange(client, code, verifier, client_id=None, HTTP_AUTHORIZATION=f"Basic {basic}"))
    code, verifier = code_for(client)
    tokens_of(exchange(client, code, verifier, client_secret="s3cret"))


def test_the_token_endpoint_needs_post_and_answers_json(client, db):
    response = client.get("/oauth/token")
    assert response.status_code == 405 and response.json()["error"] == "invalid_request"
    refusal(client.post("/oauth/token", {"grant_type": "refresh_token"}), "invalid_client")


def test_a_token_for_the_agent_endpoint_is_refused_on_v1_and_the_reverse(client, oauth_client):
    code, verifier = code_for(client)
    mcp_token = tokens_of(exchange(client, code, verifier))["access_token"]
    response = client.get("/api/v1/bookings/CB-NONE", HTTP_AUTHORIZATION=f"Bearer {mcp_token}")
    assert response.status_code == 401 and 'error="invalid_token"' in response["WWW-Authenticate"]
    code, verifier = code_for(client, resource=V1)
    v1_token = tokens_of(exchange(client, code, verifier, resource=None))["access_token"]
    assert ApiToken.objects.get(digest=tokens.digest_of(v1_token)).audience == V1
    assert client.get("/api/v1/bookings/CB-NONE", HTTP_AUTHORIZATION=f"Bearer {v1_token}").status_code == 404
    error_of(tools_list(client, v1_token), 401, -32010, request_id=1)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # the version moves on commit
def test_revoking_an_access_token_revokes_the_grant(client, oauth_client):
    code, verifier = code_for(client)
    issued = tokens_of(exchange(client, code, verifier))
    response = client.post("/oauth/revoke", {"token": issued["access_token"], "client_id": "assistant-1"})
    assert response.status_code == 200 and response["Cache-Control"] == "private, no-store"
    assert OAuthGrant.objects.get().revoked_at is not None
    error_of(tools_list(client, issued["access_token"]), 401, -32010, request_id=1)
    refusal(refresh(client, issued["refresh_token"]), "invalid_grant")


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # the version moves on commit
def test_revoking_a_refresh_token_revokes_the_grant(client, oauth_client):
    code, verifier = code_for(client)
    issued = tokens_of(exchange(client, code, verifier))
    client.post("/oauth/revoke", {"token": issued["refresh_token"], "client_id": "assistant-1"})
    assert ApiToken.objects.get().revoked_at is not None
    error_of(tools_list(client, issued["access_token"]), 401, -32010, request_id=1)


def test_revoking_an_unknown_or_foreign_token_answers_200_and_changes_nothing(client, oauth_client):
    code, verifier = code_for(client)
    issued = tokens_of(exchange(client, code, verifier))
    OAuthClient.objects.create(
        client_id="other", registration="dynamic", name="Other", redirect_uris=[REDIRECT]
    )
    for body in (
        {"token": "cbt_unknown", "client_id": "assistant-1"},
        {"token": issued["access_token"], "client_id": "other"},
    ):
        assert client.post("/oauth/revoke", body).status_code == 200
    assert OAuthGrant.objects.get().revoked_at is None
    assert "tools" in result_of(tools_list(client, issued["access_token"]))
    refusal(client.post("/oauth/revoke", {"client_id": "assistant-1"}), "invalid_request")


def test_a_grants_tokens_share_one_rate_limit(client, oauth_client, settings):
    settings.API_RATE_LIMIT_REQUESTS = 3
    code, verifier = code_for(client, resource=V1)
    issued = tokens_of(exchange(client, code, verifier, resource=V1))
    renewed = tokens_of(refresh(client, issued["refresh_token"]))
    for access_token in (issued["access_token"], renewed["access_token"], issued["access_token"]):
        response = client.get("/api/v1/price", HTTP_AUTHORIZATION=f"Bearer {access_token}")
        assert response.status_code not in (401, 429)
    response = client.get("/api/v1/price", HTTP_AUTHORIZATION=f"Bearer {renewed['access_token']}")
    assert response.status_code == 429


def test_a_json_body_is_refused_in_oauths_format(client, oauth_client):
    response = client.post("/oauth/token", {"grant_type": "refresh_token"}, content_type="application/json")
    assert refusal(response, "invalid_request")["error_description"].startswith(
        "Send the parameters form-encoded"
    )
