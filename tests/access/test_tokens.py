import hashlib
import json
import re
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from access import tokens
from access.models import ApiToken
from tests.conftest import start_of_window

pytestmark = pytest.mark.django_db


def test_only_a_digest_and_a_prefix_are_stored():
    token, plain = tokens.issue_token(name="Concierge", scopes=["booking.read"])
    assert plain.startswith("cbt_") and len(plain) >= 4 + 32
    stored = ApiToken.objects.filter(pk=token.pk).values().get()
    assert stored["digest"] == hashlib.sha256(plain.encode()).hexdigest()
    assert stored["prefix"] == plain[:12]
    assert all(plain not in str(value) for value in stored.values())
    assert tokens.authenticate(plain) == token


@pytest.mark.parametrize("presented", ["", "cbt_", "cbt_wrong", "Bearer x", "x" * 1000])
def test_unknown_tokens_are_refused(presented):
    tokens.issue_token(name="Concierge", scopes=["booking.read"])
    assert tokens.authenticate(presented) is None


def test_a_token_with_the_same_prefix_but_another_secret_is_refused():
    _, plain = tokens.issue_token(name="Concierge", scopes=["booking.read"])
    assert tokens.authenticate(plain[:-1] + ("A" if plain[-1] != "A" else "B")) is None


def test_expiry_and_revocation(django_capture_on_commit_callbacks):
    token, plain = tokens.issue_token(name="Short", scopes=["booking.read"], expires_in_days=1)
    assert tokens.authenticate(plain) == token
    with django_capture_on_commit_callbacks(execute=True):  # an edit, then what the admin does on commit
        ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
        tokens.tokens_changed()
    assert tokens.authenticate(plain) is None
    other, other_plain = tokens.issue_token(name="Revoked", scopes=["booking.read"])
    assert tokens.authenticate(other_plain) == other
    with django_capture_on_commit_callbacks(execute=True):
        tokens.revoke(other)
    assert tokens.authenticate(other_plain) is None


def test_a_kept_token_costs_no_query_and_still_expires_on_time(django_assert_num_queries):
    token, plain = tokens.issue_token(name="Busy", scopes=["booking.read"])
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() + timedelta(seconds=1))
    assert tokens.authenticate(plain) == token
    with django_assert_num_queries(0):
        assert tokens.authenticate(plain) == token
    time.sleep(1.1)  # expiry needs no announcement: the kept token's own expires_at is checked each time
    with django_assert_num_queries(0):
        assert tokens.authenticate(plain) is None


def test_another_process_revoking_a_token_reaches_this_one_on_its_next_request(client, settings):
    """A revocation elsewhere moves the shared version; this process, which keeps the token, learns it from
    its next rate-limit round trip and refuses the token in that very request."""
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"  # what the challenge names
    token, plain = tokens.issue_token(name="Leaked", scopes=["booking.read"])
    agent = {"HTTP_AUTHORIZATION": f"Bearer {plain}"}
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert client.post("/api/mcp", ping, content_type="application/json", **agent).status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())  # the other worker's write …
    cache.set(tokens.TOKENS.key, 12345, timeout=None)  # … and its bump after the commit
    refused = client.post("/api/mcp", ping, content_type="application/json", **agent)
    assert refused.status_code == 401
    assert refused["WWW-Authenticate"] == (
        'Bearer realm="chauffeur", error="invalid_token", '
        'resource_metadata="https://chauffeur.test/.well-known/oauth-protected-resource/api/mcp", scope="booking.read booking.write"'
    )


def test_staff_edits_reach_kept_tokens(admin_client, django_capture_on_commit_callbacks):
    token, plain = tokens.issue_token(name="Partner", scopes=["booking.read", "booking.write"])
    assert tokens.authenticate(plain).scopes == ["booking.read", "booking.write"]
    form = {
        "name": "Partner",
        "scopes": ["booking.read"],
        "expires_at_0": "",
        "expires_at_1": "",
        "rate_limit": "",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/admin/access/apitoken/{token.pk}/change/", form)
    assert response.status_code == 302
    assert tokens.authenticate(plain).scopes == ["booking.read"]
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(f"/admin/access/apitoken/{token.pk}/delete/", {"post": "yes"})
    assert not ApiToken.objects.filter(pk=token.pk).exists()
    assert tokens.authenticate(plain) is None


def test_last_use_is_written_at_most_once_a_minute(django_assert_num_queries):
    token, _ = tokens.issue_token(name="Busy", scopes=["booking.read"])
    with django_assert_num_queries(1):
        tokens.record_use(token)
    first = ApiToken.objects.get(pk=token.pk).last_used_at
    with django_assert_num_queries(0):
        tokens.record_use(token)
    token.last_used_at -= timedelta(minutes=2)
    tokens.record_use(token)
    assert ApiToken.objects.get(pk=token.pk).last_used_at > first


def test_issue_token_prints_the_token_alone_on_the_last_line():
    out = StringIO()
    call_command(
        "issue_token",
        "Hotel X agent",
        "--scope",
        "booking.read",
        "--scope",
        "booking.write",
        "--expires-days",
        "30",
        stdout=out,
    )
    plain = out.getvalue().strip().splitlines()[-1]
    token = tokens.authenticate(plain)
    assert token is not None and token.name == "Hotel X agent"
    assert token.scopes == ["booking.read", "booking.write"]
    assert timedelta(days=29) < token.expires_at - timezone.now() <= timedelta(days=30)


@pytest.mark.parametrize(
    "args", [["--scope", "booking.admin"], [], ["--scope", "booking.read", "--expires-days", "0"]]
)
def test_issue_token_refuses_bad_arguments(args):
    with pytest.raises((CommandError, SystemExit)):
        call_command("issue_token", "x", *args, stdout=StringIO(), stderr=StringIO())
    assert ApiToken.objects.count() == 0


def test_staff_issue_a_token_in_the_admin_and_see_it_once(admin_client):
    response = admin_client.post(
        "/admin/access/apitoken/add/",
        {
            "name": "Partner agency",
            "scopes": ["booking.read"],
            "expires_at_0": "",
            "expires_at_1": "",
            "rate_limit": "120",
        },
    )
    assert response.status_code == 200  # the token's own page, answered to the POST: no redirect
    plain = re.search(r'value="(cbt_[^"]+)"', response.content.decode())[1]
    assert "no-store" in response["Cache-Control"]
    assert plain not in str(response.cookies)  # not in a message cookie either
    token = tokens.authenticate(plain)
    assert (token.name, token.scopes, token.rate_limit) == ("Partner agency", ["booking.read"], 120)
    listing = admin_client.get("/admin/access/apitoken/").content.decode()
    assert token.prefix in listing and "Partner agency" in listing and "booking.read" in listing
    assert plain not in listing
    assert plain not in admin_client.get(f"/admin/access/apitoken/{token.pk}/change/").content.decode()


def test_staff_revoke_tokens_with_the_action(admin_client, django_capture_on_commit_callbacks):
    token, plain = tokens.issue_token(name="Leaked", scopes=["booking.write"])
    assert tokens.authenticate(plain) == token  # kept by this process from now on
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            "/admin/access/apitoken/",
            {"action": "revoke_selected", "_selected_action": [token.pk]},
            follow=True,
        )
    assert response.status_code == 200
    assert tokens.authenticate(plain) is None
    assert f"Leaked ({token.prefix}…)" in response.content.decode()  # the message says which tokens
    assert "revoked" in admin_client.get("/admin/access/apitoken/").content.decode()


def test_a_valid_token_is_its_own_rate_limit_client_with_its_own_limit(client):
    _, plain = tokens.issue_token(name="Big partner", scopes=["booking.read"], rate_limit=100)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {plain}"}
    start_of_window(client, REMOTE_ADDR="203.0.113.5")
    for _ in range(3):
        client.get("/api/v1", REMOTE_ADDR="203.0.113.5")
    response = client.get("/api/v1", REMOTE_ADDR="203.0.113.5", **auth)
    assert response["RateLimit-Policy"] == '"default";q=100;w=60'
    assert response["RateLimit"].startswith('"default";r=99;')  # not the address's count
    forged = client.get("/api/v1", REMOTE_ADDR="203.0.113.5", HTTP_AUTHORIZATION="Bearer cbt_forged")
    assert forged.status_code == 401 and "RateLimit" not in forged  # refused before it is counted
    anonymous = client.get("/api/v1", REMOTE_ADDR="203.0.113.5")
    assert anonymous["RateLimit"].startswith('"default";r=56;')  # the address's own count


@pytest.mark.parametrize("state", ["expired", "revoked", "forged"])
def test_a_dead_token_on_the_rest_api_hears_401_invalid_token_never_the_addresss_429(client, settings, state):
    settings.API_RATE_LIMIT_REQUESTS = 2
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"
    start_of_window(client)
    for _ in range(2):  # anonymous callers behind the same address spend its budget
        assert client.get("/api/v1/price", {"distanceKm": 20, "vehicleClass": "first"}).status_code == 200
    assert client.get("/api/v1/bookings").status_code == 429
    token, plain = tokens.issue_token(name="agent", scopes=["booking.read"])
    if state == "expired":
        ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    elif state == "revoked":
        tokens.revoke(token)
    else:
        plain = plain[:-4] + "AAAA"
    for path in ("/api/v1/bookings", "/api/v1/price?distanceKm=20&vehicleClass=first", "/api/v1"):
        response = client.get(path, HTTP_AUTHORIZATION=f"Bearer {plain}")
        assert response.status_code == 401, (path, response.content)
        assert response["Content-Type"] == "application/problem+json" and "Retry-After" not in response
        assert response["WWW-Authenticate"] == (
            'Bearer realm="chauffeur", error="invalid_token", '
            'resource_metadata="https://chauffeur.test/.well-known/oauth-protected-resource/api/v1", '
            'scope="booking.read booking.write"'
        )
        assert response.json()["code"] == "unauthorized"
