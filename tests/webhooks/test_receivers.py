"""The receivers docs/api/webhooks.md shows, run as written (Python with the standardwebhooks package, Node
with its npm twin) against real deliveries: each accepts what we sign, skips a replay it handled, and
refuses a delivery whose signature is not ours."""

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from tests.processes import ROOT, free_port
from tests.queued import run_pending_jobs
from webhooks import publishing, sending
from webhooks.models import Delivery, Endpoint

pytestmark = pytest.mark.django_db
PAGE = ROOT / "docs" / "api" / "webhooks.md"
NODE_TOOLS = ROOT / "tests" / "mcp_endpoint" / "node"
NODE = NODE_TOOLS / "node_modules" / ".bin" / "node"


def documented(language: str) -> str:
    (block,) = re.findall(rf"^```{language}\n(.*?)^```$", PAGE.read_text(encoding="utf-8"), re.M | re.S)
    return block


@contextmanager
def serving(command: list[str], secret: str, cwd: Path) -> Iterator[tuple[str, list[str]]]:
    """The receiver on a free port; yields its URL and, once it stopped, the lines it printed."""
    port = free_port()
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "WEBHOOK_SECRET": secret, "PORT": str(port)}
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    printed: list[str] = []
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                requests.get(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except requests.ConnectionError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                assert time.monotonic() < deadline, "the receiver did not start"
                time.sleep(0.1)
        yield f"http://localhost:{port}/hooks", printed
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=10)
        printed.extend(out.splitlines())


def deliver_and_forge(url: str, endpoint: Endpoint) -> list[int | None]:
    """Two events of one booking, the first sent again, and one forged delivery: the statuses answered."""
    for event_type in ("booking.paid", "ride.arrived"):
        publishing.publish(event_type, subject="CB-DOCS01", data={"reference": "CB-DOCS01"}, audience=[])
    run_pending_jobs()
    first = Delivery.objects.filter(endpoint=endpoint).order_by("event__created_at").first()
    sending.replay(first)
    run_pending_jobs()
    body, headers = sending.signed(first, first.event.created_at)
    forged = requests.post(url, data=body.replace("CB-DOCS01", "CB-OTHER1"), headers=headers, timeout=5)
    return [
        *Delivery.objects.filter(endpoint=endpoint).values_list("last_status", flat=True),
        forged.status_code,
    ]


@pytest.fixture
def endpoint(settings):
    settings.WEBHOOKS_PRIVATE_ADDRESSES = True
    return Endpoint.objects.create(url="http://localhost:1/hooks")


def test_the_documented_python_receiver_verifies_our_deliveries(endpoint, tmp_path):
    script = tmp_path / "receiver.py"
    script.write_text(documented("python"), encoding="utf-8")
    with serving([sys.executable, str(script)], endpoint.secret, tmp_path) as (url, printed):
        Endpoint.objects.filter(pk=endpoint.pk).update(url=url)
        endpoint.refresh_from_db()
        statuses = deliver_and_forge(url, endpoint)

    assert statuses == [204, 204, 400]
    assert printed == ["booking.paid CB-DOCS01", "ride.arrived CB-DOCS01"]  # the replay skipped


def test_the_documented_javascript_receiver_verifies_our_deliveries(endpoint):
    if not NODE.exists():
        pytest.skip(
            "Node's standardwebhooks is not installed: `make test` installs it from tests/mcp_endpoint/node"
        )
    script = NODE_TOOLS / f".webhook-receiver-{endpoint.pk}-{time.monotonic_ns()}.mjs"
    script.write_text(documented("javascript"), encoding="utf-8")
    try:
        with serving([str(NODE), script.name], endpoint.secret, NODE_TOOLS) as (url, printed):
            Endpoint.objects.filter(pk=endpoint.pk).update(url=url)
            endpoint.refresh_from_db()
            statuses = deliver_and_forge(url, endpoint)
    finally:
        script.unlink()

    assert statuses == [204, 204, 400]
    assert printed == ["booking.paid CB-DOCS01", "ride.arrived CB-DOCS01"]
