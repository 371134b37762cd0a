"""Run the project in a fresh process, with a clean environment plus what the test sets."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def project_env(**env: str) -> dict[str, str]:
    inherited = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_", "REDIS_"))
    }
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
