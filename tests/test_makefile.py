"""The Makefile as a newcomer meets it: a bare `make` lists the targets, `make migrate` makes the tables,
`make superuser` creates the admin from Django's DJANGO_SUPERUSER_* variables and, with neither those nor a
terminal, fails saying what to set. Runs in the project's .venv (its install stamps keep pip out of it)."""

import shutil
import sqlite3
import subprocess

import pytest

from tests.processes import ROOT, project_env

pytestmark = pytest.mark.skipif(
    not shutil.which("make") or not (ROOT / ".venv" / ".installed-run").exists(),
    reason="needs GNU make and the project's .venv (make .venv/.installed-run)",
)
SUPERUSER = {
    "DJANGO_SUPERUSER_USERNAME": "eva",
    "DJANGO_SUPERUSER_EMAIL": "eva@chauffeur.test",
    "DJANGO_SUPERUSER_PASSWORD": "a-long-enough-demo-password",
}


MAKE_OWN = ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "PREPARED")


def make(*targets: str, **env: str) -> subprocess.CompletedProcess:
    """stdin from /dev/null: no terminal, as in CI or a script. A make of its own, not a sub-make of the
    `make test` running this suite, whose command-line variables (CI's PREPARED=1) reach its recipes'
    environment and MAKEFLAGS."""
    fresh = {key: value for key, value in project_env(**env).items() if key not in MAKE_OWN}
    return subprocess.run(
        ["make", "--no-print-directory", *targets],
        cwd=ROOT,
        env=fresh,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


def users(database) -> list[tuple]:
    with sqlite3.connect(database) as rows:
        return rows.execute("SELECT username, email, is_superuser, is_staff FROM auth_user").fetchall()


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> dict[str, str]:
    """A throwaway SQLite database made by `make migrate`."""
    database = tmp_path_factory.mktemp("makefile") / "db.sqlite3"
    env = {"DATABASE_URL": f"sqlite:///{database}"}
    done = make("migrate", **env)
    assert done.returncode == 0, done.stdout + done.stderr
    return {**env, "path": str(database)}


def test_a_bare_make_lists_the_targets_one_line_each():
    bare, listed = make(), make("help")
    assert bare.returncode == 0 and bare.stdout == listed.stdout and bare.stderr == ""
    lines = {line.split()[1]: line for line in listed.stdout.splitlines()}
    assert {"run", "test", "migrate", "superuser", "token", "help"} <= set(lines)
    assert all(line.startswith("  make ") and len(line.split()) > 2 for line in lines.values())
    assert "up to date" not in listed.stdout


def test_make_migrate_creates_the_tables(migrated):
    with sqlite3.connect(migrated["path"]) as rows:
        tables = {name for (name,) in rows.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"auth_user", "booking_booking", "fleet_driver", "django_migrations"} <= tables


def test_make_superuser_without_a_terminal_or_the_variables_fails_naming_them(migrated):
    before = users(migrated["path"])
    done = make("superuser", DATABASE_URL=migrated["DATABASE_URL"])
    assert done.returncode != 0
    assert "DJANGO_SUPERUSER_USERNAME DJANGO_SUPERUSER_EMAIL DJANGO_SUPERUSER_PASSWORD" in done.stderr
    partly = make("superuser", DATABASE_URL=migrated["DATABASE_URL"], DJANGO_SUPERUSER_USERNAME="eva")
    assert partly.returncode != 0
    assert "Set DJANGO_SUPERUSER_EMAIL DJANGO_SUPERUSER_PASSWORD " in partly.stderr
    assert users(migrated["path"]) == before


def test_make_superuser_creates_the_admin_from_the_variables(migrated):
    done = make("superuser", DATABASE_URL=migrated["DATABASE_URL"], **SUPERUSER)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "createsuperuser --noinput" in done.stdout and "Superuser created successfully." in done.stdout
    assert ("eva", "eva@chauffeur.test", 1, 1) in users(migrated["path"])


def test_a_prepared_ci_leg_only_runs_pytest_and_the_preparation_all_the_rest():
    """CI prepares once, then runs two legs (.ci/run): a leg must not lint or build again."""
    whole, leg, preparation = make("-n", "test"), make("-n", "test", "PREPARED=1"), make("-n", "test-prepare")
    assert "ruff check ." in whole.stdout and whole.stdout.endswith(leg.stdout)
    assert leg.returncode == 0 and leg.stdout.startswith("log=$(mktemp)")  # the test recipe alone
    assert "ruff check ." in preparation.stdout
    runs = [line for line in preparation.stdout.splitlines() if "pytest" in line]
    assert all("--collect-only" in line for line in runs), runs  # only the bytecode, no test runs


def test_the_suite_runs_as_two_parts_that_together_take_every_test():
    """The tests that start processes one at a time, the others in parallel workers at the lowest priority."""
    recipe = make("-n", "test", "PREPARED=1").stdout
    assert 'nice -n 19 .venv/bin/python -m pytest -n auto --dist worksteal -m "not serial"' in recipe
    assert ".venv/bin/python -m pytest -m serial || status=$?" in recipe
    assert "-n 3 " in make("-n", "test", "PREPARED=1", "TEST_WORKERS=3").stdout
