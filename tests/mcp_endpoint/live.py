"""A real gunicorn serving the project on a throwaway SQLite database, with API tokens issued by the
project's own command: what outside MCP clients (the Python SDK, the TypeScript SDKs, the Inspector, the
conformance suite) connect to."""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.processes import free_port, gunicorn, manage, migrated_sqlite


@dataclass(frozen=True)
class LiveServer:
    base: str
    env: dict[str, str]
    read_token: str
    write_token: str  # booking.read and booking.write

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/api/mcp"


def issue_token(env: dict[str, str], *scopes: str) -> str:
    scope_args = [arg for scope in scopes for arg in ("--scope", scope)]
    # Far above the default 60 a minute: the clients together send a few hundred messages per run.
    issued = manage("issue_token", "outside client test", *scope_args, "--rate-limit", "100000", **env)
    assert issued.returncode == 0, issued.stderr
    return issued.stdout.strip().splitlines()[-1]


@contextmanager
def live_server(tmp: Path, workers: int = 2) -> Iterator[LiveServer]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        "DJANGO_SECRET_KEY": "mcp-client-test-secret-key-" + "x" * 40,
        "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
        "DJANGO_DEBUG": "true",  # the sandbox payment provider refuses to run without it
        "PAYMENT_PROVIDER": "sandbox",
        "PUBLIC_BASE_URL": base,
    }
    migrated_sqlite(tmp / "db.sqlite3")
    read_token = issue_token(env, "booking.read")
    write_token = issue_token(env, "booking.read", "booking.write")
    access_log = '"%(r)s" %(s)s MCP-Protocol-Version=%({mcp-protocol-version}i)s'
    with gunicorn(tmp, env, "--access-logformat", access_log, workers=workers, port=port):
        yield LiveServer(base, env, read_token, write_token)


def booking_count(server: LiveServer) -> int:
    counted = manage(
        "shell", "-c", "from booking.models import Booking; print(Booking.objects.count())", **server.env
    )
    assert counted.returncode == 0, counted.stderr
    return int(counted.stdout.strip().splitlines()[-1])
