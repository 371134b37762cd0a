"""An outside tester's view: the schemathesis CLI with all its checks, positive data acceptance
included, against the service as production runs it (gunicorn, debug off, no payment provider configured)
on the suite's own kind of database and cache. Zero failures: /openapi.json states every rule an input is
checked by. Options the schema cannot carry are in schemathesis.toml beside this file."""

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.databases import server_database
from tests.processes import gunicorn, manage

CONFIG = Path(__file__).with_name("schemathesis.toml")
SEED = "26"  # reproducible: the same generated requests on every run
MAX_EXAMPLES = "30"  # per operation and phase: about a minute and a half on SQLite


@pytest.fixture
def production_server(tmp_path) -> Iterator[tuple[str, str]]:
    """The server's address and a bearer token with both scopes, issued by the project's own command."""
    with server_database(tmp_path, "schemathesis") as database_url:
        env = {
            "DJANGO_SETTINGS_MODULE": "tests.config.live_settings",  # production's, with a generous limit
            "DJANGO_SECRET_KEY": "schemathesis-live-secret-key-" + "x" * 40,
            "DATABASE_URL": database_url,
            "PAYMENT_PROVIDER": "none",  # production before Stripe is set up: checkout's documented 503
        }
        if os.environ.get("REDIS_URL"):
            env["REDIS_URL"] = os.environ["REDIS_URL"]
        migrated = manage("migrate", "--noinput", **env)
        assert migrated.returncode == 0, migrated.stdout + migrated.stderr
        issued = manage(
            "issue_token",
            "schemathesis",
            "--scope",
            "booking.read",
            "--scope",
            "booking.write",
            "--rate-limit",
            "1000000",
            **env,
        )
        assert issued.returncode == 0, issued.stderr
        with gunicorn(tmp_path, env) as (base, _log):
            yield base, issued.stdout.strip().splitlines()[-1]


def schemathesis_command(config: Path | str, base: str, token: str, *options: str) -> list[str]:
    """The CLI's run with every check, against `base`'s document, reproducible (a fixed seed, no example
    database), with the bearer token on every request."""
    return [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--no-color",
        "--config-file",
        str(config),
        "run",
        f"{base}/openapi.json",
        "--checks",
        "all",
        "--seed",
        SEED,
        "--generation-database",
        "none",
        "--header",
        f"Authorization: Bearer {token}",
        *options,
    ]


def test_schemathesis_with_every_check_finds_nothing(production_server, tmp_path):
    base, token = production_server
    command = schemathesis_command(CONFIG, base, token, "--max-examples", MAX_EXAMPLES)
    started = time.monotonic()
    # In tmp_path: the CLI keeps a .schemathesis folder where it runs.
    run = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    print(f"schemathesis took {time.monotonic() - started:.0f} s")  # shown with -s: the run's time
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-5000:]
    selected = re.search(r"Selected: (\d+)/(\d+)\s+Tested: (\d+)", run.stdout)
    assert selected, run.stdout[-5000:]
    assert selected[1] == selected[2] == selected[3], selected[0]  # every operation of the document ran
