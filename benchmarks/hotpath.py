"""Where a warm request's time goes, in one process, through the production WSGI application (DEBUG off):
CPU per request, database queries and Redis round trips of one warm request, and the functions that
cost most. CPU time, not wall time, so other work on the machine disturbs it little.
Run: DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python benchmarks/hotpath.py [price|distance|
places|availability|mcp] [requests]   (uses that database; migrates it first; SORT=tottime LINES=60
orders and sizes the profile, PROFILE=0 leaves it out). To compare two trees, run each tree's copy of this
script in turn, alternating (benchmarks/compare_trees.sh)."""

import cProfile
import io
import os
import pstats
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SECRET_KEY", "profile-only-secret-key-" + "x" * 40)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from access import tokens  # noqa: E402
from benchmarks.run import MCP_CALL, MCP_HEADERS, READS  # noqa: E402
from config.wsgi import application  # noqa: E402
from tests.roundtrips import count_redis_commands  # noqa: E402


def environ(path: str, query: str, method: str, body: bytes, headers: dict[str, str]) -> dict:
    env = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "CONTENT_LENGTH": str(len(body)),
    }
    for name, value in headers.items():
        key = name.upper().replace("-", "_")
        env[key if key in {"CONTENT_TYPE", "CONTENT_LENGTH"} else f"HTTP_{key}"] = value
    return env


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else "price"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    call_command("migrate", verbosity=0)
    token, plain = tokens.issue_token(name="profile", scopes=["booking.read"], rate_limit=2_000_000_000)
    auth = {"Authorization": f"Bearer {plain}"}
    if which == "mcp":
        request = ("/api/mcp", "", "POST", MCP_CALL.encode(), {**MCP_HEADERS, **auth})
    else:
        request = (f"/api/v1/{which}", urlencode(READS[f"/api/v1/{which}"]), "GET", b"", auth)

    statuses: list[str] = []

    def call() -> bytes:
        body = b"".join(application(environ(*request), lambda status, headers: statuses.append(status)))
        if not statuses[-1].startswith("200"):
            sys.exit(f"{which}: {statuses[-1]} {body[:500]!r}")
        return body

    for _ in range(20):
        call()
    with CaptureQueriesContext(connection) as queries, count_redis_commands() as redis_commands:
        call()
    query_count = len(queries)  # now: the next request's start clears the log the count reads
    batches = []  # the best of five batches: the machine's other work disturbs the minimum least
    for _ in range(5):
        started = time.process_time()
        for _ in range(count // 5):
            call()
        batches.append((time.process_time() - started) / (count // 5))
    cpu = min(batches)
    if os.environ.get("PROFILE", "1") != "0":
        profile = cProfile.Profile(time.process_time)  # CPU, as the figure above: waits on Redis do not count
        profile.runcall(lambda: [call() for _ in range(count)])
        report = io.StringIO()
        order, lines = os.environ.get("SORT", "cumulative"), int(os.environ.get("LINES", "40"))
        pstats.Stats(profile, stream=report).sort_stats(order).print_stats(lines)
        print(report.getvalue())
    print(f"{which}: {cpu * 1000:.3f} ms CPU per warm request (best of 5 × {count // 5}, one process)")
    print(f"database queries of one warm request: {query_count}")
    print(f"Redis round trips of one warm request: {len(redis_commands)} {redis_commands}")
    token.delete()


if __name__ == "__main__":
    main()
