"""Run the project in a fresh process, with a clean environment plus what the test sets."""

import atexit
import functools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

from tests.databases import locked, migrated, template_folder

ROOT = Path(__file__).resolve().parents[1]


# Every variable of the configuration table (docs/decisions.md §2): none may leak in from the shell running the tests.
PROJECT_VARIABLES = (
    "DJANGO_",
    "DATABASE_URL",
    "REDIS_URL",
    "PUBLIC_BASE_URL",
    "GOOGLE_",
    "PAYMENT_PROVIDER",
    "STRIPE_",
    "OPERATOR_EMAIL",
    "TRUSTED_PROXY_COUNT",
    "EMAIL_",
    "DEFAULT_FROM_EMAIL",
    "CORS_ALLOWED_ORIGINS",
    "JOBS_",
    "OAUTH_",
)


def project_env(**env: str) -> dict[str, str]:
    inherited = {key: value for key, value in os.environ.items() if not key.startswith(PROJECT_VARIABLES)}
    return {**inherited, "DJANGO_SETTINGS_MODULE": "config.settings", **env}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=project_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def migrated_sqlite(database: Path) -> None:
    """A freshly migrated SQLite database at `database`: a copy of one `manage.py migrate` made once per test
    process, or once per `make test` run (a migration from nothing costs a server test more CPU than all its
    requests)."""
    shutil.copyfile(_migrated_once(), database)


@functools.cache
def _migrated_once() -> Path:
    folder = template_folder()  # shared by every process of a `make test` run
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    with locked(folder):
        migrated(folder, "server-sqlite", f"sqlite:///{folder / 'server.sqlite3'}", DJANGO_DEBUG="true")
    return folder / "server.sqlite3"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_healthy(
    base: str, server: subprocess.Popen, log: Path, timeout: float = 60, *, any_answer: bool = False
) -> None:
    """Poll /healthz until a server process started by a test answers (200, or anything with `any_answer`);
    fail with its log otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if requests.get(f"{base}/healthz", timeout=5).status_code == 200 or any_answer:
                return
        except requests.RequestException:  # not listening yet, or its workers still booting
            pass
        assert server.poll() is None, "the server exited:\n" + log.read_text()
        assert time.monotonic() < deadline, "the server did not come up:\n" + log.read_text()
        time.sleep(0.2)


@contextmanager
def gunicorn(
    tmp: Path,
    env: dict[str, str],
    *options: str,
    workers: int = 2,
    any_answer: bool = False,
    port: int | None = None,
) -> Iterator[tuple[str, Path]]:
    """The production server with the project's gunicorn.conf.py and `env`: its address and log. Each access
    log line names the worker (`worker=<pid> status=<code>`; `options` may set another format). `port`:
    one the caller chose first, e.g. to put the server's address in `env`."""
    port = port or free_port()
    log = tmp / "gunicorn.log"
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        "config/gunicorn.conf.py",
        "config.wsgi",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--access-logformat",
        "worker=%(p)s status=%(s)s",
        *options,
    ]
    with log.open("w") as output:
        server = subprocess.Popen(
            command, cwd=ROOT, env=project_env(**env), stdout=output, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(base, server, log, any_answer=any_answer)
        yield base, log
    finally:
        server.terminate()
        server.wait(timeout=30)


def clean_env(**env: str) -> dict[str, str]:
    """No project variable at all, not even DJANGO_SETTINGS_MODULE: the shell an operator starts from."""
    return {key: value for key, value in os.environ.items() if not key.startswith(PROJECT_VARIABLES)} | env


def run_python(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """`python *args` in the project folder, in a fresh process with exactly `env`."""
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
