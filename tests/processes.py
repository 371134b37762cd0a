"""Run the project in a fresh process, with a clean environment plus what the test sets."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# Every variable of the configuration table (DECISIONS §2): none may leak in from the shell running the tests.
PROJECT_VARIABLES = (
    "DJANGO_", "DATABASE_URL", "REDIS_URL", "PUBLIC_BASE_URL", "GOOGLE_", "PAYMENT_PROVIDER", "STRIPE_",
    "OPERATOR_EMAIL", "TRUSTED_PROXY_COUNT", "EMAIL_", "DEFAULT_FROM_EMAIL",
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
