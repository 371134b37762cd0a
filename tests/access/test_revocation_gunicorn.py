"""Every worker keeps the tokens it has seen (access/tokens.py), yet a revocation reaches all of them at once:
gunicorn with 3 workers on Redis, the token revoked from another process (manage.py, as staff would)."""

import os
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.processes import gunicorn, manage, migrated_sqlite

REDIS_URL = os.environ.get("REDIS_URL", "")
pytestmark = pytest.mark.skipif(
    not REDIS_URL,
    reason="needs REDIS_URL: workers learn of a revocation through Redis (CI's second run sets it)",
)
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def workers_answering(log: str, status: int) -> set[str]:
    return set(re.findall(rf"worker=<?(\d+)>? status={status}", log))


def pings_until(
    ping: Callable[[int], requests.Response],
    logged: Callable[[], str],
    status: int,
    enough: Callable[[set[str]], bool],
) -> list[requests.Response]:
    """Pings until the workers that answered `status` in the access log are `enough`. Which worker accepts
    is the kernel's choice, and on a loaded machine the others may still be starting (seen in CI: 300 pings,
    one worker): batches go on, a moment apart, for at most a minute."""
    answers: list[requests.Response] = []
    give_up = time.monotonic() + 60
    with ThreadPoolExecutor(6) as pool:
        while not enough(workers_answering(logged(), status)) and time.monotonic() < give_up:
            answers += pool.map(ping, range(len(answers), len(answers) + 30))
            time.sleep(0.2)
    return answers


def test_a_revoked_token_is_refused_by_every_worker_from_the_next_request_on(tmp_path):
    env = {
        "DJANGO_SECRET_KEY": "gunicorn-test-secret-key-" + "x" * 30,
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
        "REDIS_URL": REDIS_URL,
        "TRUSTED_PROXY_COUNT": "1",  # each ping names its own client: the address limit stays out of the way
    }
    migrated_sqlite(tmp_path / "db.sqlite3")
    # Far above 60 a minute, so the token's own limit stays out of the way too.
    issued = manage("issue_token", "agent", "--scope", "booking.read", "--rate-limit", "100000", **env)
    bearer = {"Authorization": f"Bearer {issued.stdout.strip().splitlines()[-1]}"}

    def ping(number: int) -> requests.Response:
        client = {"X-Forwarded-For": f"198.18.{number // 250}.{number % 250 + 1}"}
        return requests.post(f"{base}/api/mcp", json=PING, headers=bearer | client, timeout=10)

    # One connection at a time per worker: a threaded worker may otherwise accept every parallel ping
    # itself (seen in CI, 300 of 300), and the others would never see the token.
    with gunicorn(tmp_path, env, "--worker-connections", "1", workers=3) as (base, log):
        # Only the pings count: the health checks that waited for the server were answered 200 too.
        logged = len(log.read_text())

        def pinged() -> str:
            return log.read_text()[logged:]

        accepted = pings_until(ping, pinged, 200, lambda workers: len(workers) >= 2)
        assert {response.status_code for response in accepted} == {200}
        keepers = workers_answering(pinged(), 200)  # these now keep the token
        assert len(keepers) >= 2, log.read_text()[-2000:]

        revoke = "from access import tokens\nfrom access.models import ApiToken\n[tokens.revoke(t) for t in ApiToken.objects.all()]"
        assert manage("shell", "-c", revoke, **env).returncode == 0

        refused = pings_until(ping, pinged, 401, lambda workers: len(workers & keepers) >= 2)
        assert {response.status_code for response in refused} == {401}
        assert {response.json()["error"]["code"] for response in refused} == {-32010}
        # at least two of the workers that kept the token refused it
        assert len(workers_answering(pinged(), 401) & keepers) >= 2, log.read_text()[-2000:]
