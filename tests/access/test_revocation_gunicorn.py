"""Every worker keeps the tokens it has seen (access/tokens.py), yet a revocation reaches all of them at once:
gunicorn with 3 workers on Redis, the token revoked from another process (manage.py, as staff would)."""

import os
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.processes import gunicorn, manage

REDIS_URL = os.environ.get("REDIS_URL", "")
pytestmark = pytest.mark.skipif(
    not REDIS_URL,
    reason="needs REDIS_URL: workers learn of a revocation through Redis (CI's second run sets it)",
)
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def workers_answering(log: str, status: int) -> set[str]:
    return set(re.findall(rf"worker=<?(\d+)>? status={status}", log))


def test_a_revoked_token_is_refused_by_every_worker_from_the_next_request_on(tmp_path):
    env = {
        "DJANGO_SECRET_KEY": "gunicorn-test-secret-key-" + "x" * 30,
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
        "REDIS_URL": REDIS_URL,
    }
    assert manage("migrate", "--noinput", **env).returncode == 0
    issued = manage("issue_token", "agent", "--scope", "booking.read", **env)
    headers = {"Authorization": f"Bearer {issued.stdout.strip().splitlines()[-1]}"}
    with gunicorn(tmp_path, env, workers=3) as (base, log):
        # Sequential requests spread over the workers (each accepts in turn): every one now keeps the token.
        accepted = [
            requests.post(f"{base}/api/mcp", json=PING, headers=headers, timeout=10) for _ in range(30)
        ]
        assert [response.status_code for response in accepted] == [200] * 30
        assert len(workers_answering(log.read_text(), 200)) >= 2, log.read_text()[-2000:]

        revoke = "from access import tokens\nfrom access.models import ApiToken\n[tokens.revoke(t) for t in ApiToken.objects.all()]"
        assert manage("shell", "-c", revoke, **env).returncode == 0

        # Several at once, so that more than one worker must answer (one idle worker may take them all
        # one after another).
        with ThreadPoolExecutor(6) as pool:
            refused = list(
                pool.map(
                    lambda _: requests.post(f"{base}/api/mcp", json=PING, headers=headers, timeout=10),
                    range(60),
                )
            )
        assert [response.status_code for response in refused] == [401] * 60
        assert {response.json()["error"]["code"] for response in refused} == {-32010}
        assert len(workers_answering(log.read_text(), 401)) >= 2, log.read_text()[-2000:]
