"""The OAuth proofs' live service: gunicorn, a job worker (`manage.py run_worker`) that mails the
traveller's one-time sign-in code, and a mail sink on loopback (aiosmtpd) the test reads that code from. The
traveller's browser is `Browser` (browser.py). Nothing of ours is patched: the clients under test talk HTTP
to gunicorn, gunicorn queues the mail, the worker sends it over SMTP."""

import os
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

from aiosmtpd.controller import Controller

from tests.jobqueue.worker_processes import worker
from tests.processes import free_port, gunicorn, manage, migrated_sqlite

SCOPES = ["booking.read", "booking.write"]
CODE = re.compile(r"(?<!\d)(\d{6})(?!\d)")


class Mailbox:
    """An aiosmtpd handler keeping every message whole (recipients, parsed message)."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], EmailMessage]] = []

    async def handle_DATA(self, server, session, envelope):
        message = message_from_bytes(envelope.content, policy=policy.default)
        self.messages.append(([address.lower() for address in envelope.rcpt_tos], message))
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [message for recipients, message in self.messages if address.lower() in recipients]

    def code_for(self, address: str, *, seen: int, timeout: float = 60) -> str:
        """The 6-digit code in the first message to `address` after the `seen` ones it already had."""
        deadline = time.monotonic() + timeout
        while len(self.to(address)) <= seen:
            assert time.monotonic() < deadline, f"no sign-in code mailed to {address} within {timeout} s"
            time.sleep(0.1)
        message = self.to(address)[seen]
        body = message.get_body(preferencelist=("plain", "html"))
        text = body.get_content() if body is not None else message.get_content()
        found = CODE.search(text)
        assert found, f"no 6-digit code in the mail to {address}: {message['Subject']!r}\n{text[:500]}"
        return found[1]


@dataclass
class OAuthLive:
    base: str
    env: dict[str, str]
    mailbox: Mailbox
    log: Path
    tmp: Path
    extra: dict = field(default_factory=dict)

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/api/mcp"

    def shell(self, code: str) -> str:
        """Run `code` in `manage.py shell` against the live database; its last line of output."""
        done = manage("shell", "-c", code, **self.env)
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.strip().splitlines()
        return lines[-1] if lines else ""


@contextmanager
def oauth_server(
    tmp: Path, *, workers: int = 1, redis_url: str = "", env: dict[str, str] | None = None
) -> Iterator[OAuthLive]:
    """gunicorn + one job worker + the mail sink, on a throwaway SQLite database (PostgreSQL when the suite
    runs on it is not needed here: the clients, not the database, are under test)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    mailbox = Mailbox()
    smtp_port = free_port()
    settings = {
        "DJANGO_SECRET_KEY": "oauth-proof-secret-key-" + "x" * 40,
        "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
        "DJANGO_DEBUG": "true",  # the sandbox payment provider refuses to run without it
        "PAYMENT_PROVIDER": "sandbox",
        "PUBLIC_BASE_URL": base,
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_port),
        "EMAIL_USE_TLS": "false",
        "JOBS_RETRY_SECONDS": "1",
        **({"REDIS_URL": redis_url} if redis_url else {}),
        **(env or {}),
    }
    migrated_sqlite(tmp / "db.sqlite3")
    controller = Controller(mailbox, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    with ExitStack() as stack:
        stack.callback(controller.stop)
        stack.enter_context(worker(settings, tmp / "worker.log"))
        _, log = stack.enter_context(gunicorn(tmp, settings, workers=workers, port=port))
        yield OAuthLive(base, settings, mailbox, log, tmp)


def node_env(home: Path, **extra: str) -> dict[str, str]:
    """A Node client's environment: its own HOME (mcp-remote and the Inspector keep tokens there)."""
    home.mkdir(parents=True, exist_ok=True)
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "NO_COLOR": "1", **extra}


def read_line(process: subprocess.Popen, pattern: re.Pattern, timeout: float, stream: str = "stderr") -> str:
    """Read `process`'s `stream` line by line until one matches `pattern`; the first group."""
    source = getattr(process, stream)
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = source.readline()
        if not line:
            if process.poll() is not None:
                break
            continue
        seen.append(line)
        if found := pattern.search(line):
            return found[1]
    raise AssertionError(f"no line matching {pattern.pattern!r}:\n" + "".join(seen[-60:]))
