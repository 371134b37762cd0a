"""A consent revoked through /oauth/revoke stops its access token on every gunicorn worker at once, though
each worker keeps the tokens it has seen (access/tokens.py): revoke_grant moves the shared token version
in Redis."""

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.access.test_revocation_gunicorn import PING, workers_answering
from tests.processes import free_port, gunicorn, manage

REDIS_URL = os.environ.get("REDIS_URL", "")
pytestmark = pytest.mark.skipif(
    not REDIS_URL,
    reason="needs REDIS_URL: workers learn of a revocation through Redis (CI's second run sets it)",
)

SETUP = """
from access import tokens
from access.models import ApiToken, OAuthClient, OAuthGrant
client = OAuthClient.objects.create(client_id="app", registration="dynamic", name="App", redirect_uris=[],
                                    rate_limit=100000)
grant = OAuthGrant.objects.create(client=client, subject="traveller", traveller_email="anna@example.com",
                                  scopes=["booking.read"], resource="{resource}")
plain, prefix, digest = tokens.new_secret()
ApiToken.objects.create(name="OAuth: App", prefix=prefix, digest=digest, scopes=["booking.read"], grant=grant,
                        acts_for="anna@example.com", audience="{resource}", rate_limit=100000)
print(plain)
"""


def test_a_revoked_grant_is_refused_by_every_worker_from_the_next_request_on(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        "DJANGO_SECRET_KEY": "gunicorn-test-secret-key-" + "x" * 30,
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
        "REDIS_URL": REDIS_URL,
        "PUBLIC_BASE_URL": base,
        "TRUSTED_PROXY_COUNT": "1",  # each ping names its own client: the address limit stays out of the way
    }
    assert manage("migrate", "--noinput", **env).returncode == 0
    made = manage("shell", "-c", SETUP.replace("{resource}", f"{base}/api/mcp"), **env)
    assert made.returncode == 0, made.stderr
    plain = made.stdout.strip().splitlines()[-1]
    bearer = {"Authorization": f"Bearer {plain}"}

    def ping(number: int) -> requests.Response:
        client = {"X-Forwarded-For": f"198.18.{number // 250}.{number % 250 + 1}"}
        return requests.post(f"{base}/api/mcp", json=PING, headers=bearer | client, timeout=10)

    with gunicorn(tmp_path, env, workers=3, port=port) as (_, log):

        def pings_until(status: int, enough: Callable[[set[str]], bool]) -> list[requests.Response]:
            answers: list[requests.Response] = []
            with ThreadPoolExecutor(6) as pool:
                while not enough(workers_answering(log.read_text(), status)) and len(answers) < 300:
                    answers += pool.map(ping, range(len(answers), len(answers) + 30))
            return answers

        accepted = pings_until(200, lambda workers: len(workers) >= 2)
        assert {response.status_code for response in accepted} == {200}
        keepers = workers_answering(log.read_text(), 200)
        assert len(keepers) >= 2, log.read_text()[-2000:]

        revoked = requests.post(f"{base}/oauth/revoke", data={"token": plain, "client_id": "app"}, timeout=10)
        assert revoked.status_code == 200

        refused = pings_until(401, lambda workers: len(workers & keepers) >= 2)
        assert {response.status_code for response in refused} == {401}
        assert len(workers_answering(log.read_text(), 401) & keepers) >= 2, log.read_text()[-2000:]
