"""Run the project in a fresh process, with a clean environment plus what the test sets."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]


# Every variable of the configuration table (docs/decisions.md §2): none may leak in from the shell running the tests.
PROJECT_VARIABLES = (
    "DJANGO_", "DATABASE_URL", "REDIS_URL", "PUBLIC_BASE_URL", "GOOGLE_", "PAYMENT_PROVIDER", "STRIPE_",
    "OPERATOR_EMAIL", "TRUSTED_PROXY_COUNT", "EMAIL_", "DEFAULT_FROM_EMAIL", "CORS_ALLOWED_ORIGINS",
)  # fmt: skip


def project_env(**env: str) -> dict[str, str]:
    inherited = {key: value for key, value in os.environ.items() if not key.startswith(PROJECT_VARIABLES)}
    return {**inherited, "DJANGO_SETTINGS_MODULE": "chauffeur.settings", **env}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=project_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_healthy(base: str, server: subprocess.Popen, log: Path, timeout: float = 30) -> None:
    """Poll /healthz until a server process started by a test answers; fail with its log otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if requests.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):  # not listening yet, or still booting
            pass
        assert server.poll() is None, "the server exited:\n" + log.read_text()
        assert time.monotonic() < deadline, "the server did not come up:\n" + log.read_text()
        time.sleep(0.2)


def clean_env(**env: str) -> dict[str, str]:
    """No project variable at all, not even DJANGO_SETTINGS_MODULE: the shell an operator starts from."""
    return {key: value for key, value in os.environ.items() if not key.startswith(PROJECT_VARIABLES)} | env


def run_python(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """`python *args` in the project folder, in a fresh process with exactly `env`."""
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
