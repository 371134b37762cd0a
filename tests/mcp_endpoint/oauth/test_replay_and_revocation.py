"""The issue's security proofs against the live service, over plain HTTP as an attacker replaying captured
requests would send them: a code, a refresh token and a registration cannot be replayed; a revoked grant
stops working on every worker at once (two gunicorn workers sharing Redis; skipped without REDIS_URL). The
same for an operator's token revoked as staff would: tests/access/test_revocation_gunicorn.py."""

import base64
import hashlib
import os
import secrets
import time
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests

from tests.access.test_revocation_gunicorn import PING, pings_until, workers_answering
from tests.mcp_endpoint.oauth.browser import Browser
from tests.mcp_endpoint.oauth.conftest import ACCESS_TOKEN_SECONDS
from tests.mcp_endpoint.oauth.harness import OAuthLive, oauth_server

REDIRECT = "http://127.0.0.1:33420/callback"
LIST = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "booking.list_bookings", "arguments": {}},
}


def register(live: OAuthLive, name: str = "Replay proof") -> dict:
    metadata = {
        "client_name": name,
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    }
    registered = requests.post(f"{live.base}/oauth/register", json=metadata, timeout=10)
    assert registered.status_code == 201, registered.text
    return registered.json()


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorized_code(live: OAuthLive, browser: Browser, client_id: str, email: str) -> tuple[str, str]:
    verifier, challenge = pkce()
    state = secrets.token_urlsafe(8)
    query = urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT,
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "scope": "booking.read booking.write",
            "resource": live.mcp_url,
        }
    )
    answer = {
        k: v[0]
        for k, v in parse_qs(
            urlsplit(browser.authorize(f"{live.base}/oauth/authorize?{query}", email=email)).query
        ).items()
    }
    assert answer["state"] == state and answer["iss"] == live.base
    return answer["code"], verifier


def token(live: OAuthLive, **form: str) -> requests.Response:
    return requests.post(f"{live.base}/oauth/token", data=form, timeout=10)


def exchange(live: OAuthLive, client_id: str, code: str, verifier: str) -> requests.Response:
    return token(
        live,
        grant_type="authorization_code",
        code=code,
        code_verifier=verifier,
        client_id=client_id,
        redirect_uri=REDIRECT,
        resource=live.mcp_url,
    )


def mcp(live: OAuthLive, access_token: str, message: dict = LIST, **headers: str) -> requests.Response:
    return requests.post(
        live.mcp_url,
        json=message,
        timeout=10,
        headers={
            "Authorization": f"Bearer {access_token}",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )


def test_a_code_cannot_be_replayed_and_its_replay_revokes_what_it_gave(live):
    client_id = register(live)["client_id"]
    code, verifier = authorized_code(live, Browser(live), client_id, "code.replay@example.com")
    first = exchange(live, client_id, code, verifier)
    issued_at = time.monotonic()
    assert first.status_code == 200, first.text
    issued = first.json()
    assert mcp(live, issued["access_token"]).status_code == 200

    replayed = exchange(live, client_id, code, verifier)

    assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant", replayed.text
    assert "access_token" not in replayed.json()
    # RFC 6749 §4.1.2: the tokens the code gave are revoked (one worker: it learns at once)
    refused = mcp(live, issued["access_token"])
    assert time.monotonic() - issued_at < ACCESS_TOKEN_SECONDS  # refused as revoked, not as expired
    assert refused.status_code == 401 and 'error="invalid_token"' in refused.headers["WWW-Authenticate"]
    again = token(
        live, grant_type="refresh_token", refresh_token=issued["refresh_token"], client_id=client_id
    )
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


def test_a_refresh_token_cannot_be_replayed_and_its_replay_ends_the_grant(live):
    client_id = register(live)["client_id"]
    code, verifier = authorized_code(live, Browser(live), client_id, "refresh.replay@example.com")
    first = exchange(live, client_id, code, verifier).json()
    issued_at = time.monotonic()
    rotated = token(
        live, grant_type="refresh_token", refresh_token=first["refresh_token"], client_id=client_id
    )
    assert rotated.status_code == 200, rotated.text
    second = rotated.json()
    assert (
        second["refresh_token"] != first["refresh_token"]
        and mcp(live, second["access_token"]).status_code == 200
    )

    replayed = token(
        live, grant_type="refresh_token", refresh_token=first["refresh_token"], client_id=client_id
    )

    assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant", replayed.text
    # a stolen refresh token used by thief and client alike: the whole grant ends, the honest side's too
    assert mcp(live, second["access_token"]).status_code == 401
    assert time.monotonic() - issued_at < ACCESS_TOKEN_SECONDS  # refused as revoked, not as expired
    later = token(
        live, grant_type="refresh_token", refresh_token=second["refresh_token"], client_id=client_id
    )
    assert later.status_code == 400 and later.json()["error"] == "invalid_grant"


def test_a_registration_cannot_be_replayed_into_the_first_clients_access(live):
    """The same registration posted again (a captured request replayed) is a new, unrelated client: it
    gets no credentials of the first, and a code issued to the first is no use to it."""
    first, replay = register(live, "Registered once"), register(live, "Registered once")
    assert first["client_id"] != replay["client_id"]
    code, verifier = authorized_code(
        live, Browser(live), first["client_id"], "registration.replay@example.com"
    )

    stolen = exchange(live, replay["client_id"], code, verifier)

    assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant", stolen.text
    assert "access_token" not in stolen.json()


# --- revocation on every worker at once -------------------------------------------------------------------

REDIS_URL = os.environ.get("REDIS_URL", "")


@pytest.mark.skipif(
    not REDIS_URL,
    reason="needs REDIS_URL: workers learn of a revocation through Redis (CI's second run sets it)",
)
def test_a_revoked_grant_stops_working_on_every_worker_at_once(tmp_path):
    env = {
        "TRUSTED_PROXY_COUNT": "1"
    }  # each ping names its own client: the address limit stays out of the way
    with oauth_server(tmp_path, workers=2, redis_url=REDIS_URL, env=env) as live:
        client_id = register(live, "Revocation proof")["client_id"]
        # far above 60 a minute for its tokens, so the grant's own limit stays out of the way too
        live.shell(
            f"from oauth.models import OAuthClient; OAuthClient.objects.filter(client_id={client_id!r}).update(rate_limit=100000)"
        )
        code, verifier = authorized_code(live, Browser(live), client_id, "revoked@example.com")
        issued = exchange(live, client_id, code, verifier).json()

        def ping(number: int) -> requests.Response:
            return mcp(
                live,
                issued["access_token"],
                PING,
                **{"X-Forwarded-For": f"198.18.{number // 250}.{number % 250 + 1}"},
            )

        def logged() -> str:  # the access log since the pings began (sign-in and consent were answered too)
            return live.log.read_text()[start:]

        start = len(live.log.read_text())

        accepted = pings_until(ping, logged, 200, lambda workers: len(workers) >= 2)
        assert {answer.status_code for answer in accepted} == {200}
        keepers = workers_answering(logged(), 200)  # both now keep the token
        assert len(keepers) == 2, logged()[-2000:]

        # The client revokes (RFC 7009), answered by one worker: the whole grant ends, everywhere.
        revoked = requests.post(
            f"{live.base}/oauth/revoke",
            data={"token": issued["refresh_token"], "client_id": client_id},
            timeout=10,
        )
        assert revoked.status_code == 200, revoked.text

        refused = pings_until(ping, logged, 401, lambda workers: len(workers & keepers) == 2)
        assert {answer.status_code for answer in refused} == {401}
        assert len(workers_answering(logged(), 401) & keepers) == 2, logged()[-2000:]
        # and the refresh token is dead as well
        dead = token(
            live, grant_type="refresh_token", refresh_token=issued["refresh_token"], client_id=client_id
        )
        assert dead.status_code == 400 and dead.json()["error"] == "invalid_grant"
