"""CI's two legs (.ci/run): which tests run on one leg only (CI_LEG, tests/conftest.py), and .ci/isolated, which
gives the PostgreSQL/Redis leg a database and a Redis index of its own: two runs on one host get different
ones, both are cleaned up on exit, the command's exit status is the run's, and Redis database 0 is never
taken. The .ci/isolated tests need the local PostgreSQL and Redis servers (CI's PostgreSQL leg has them)."""

import ast
import shutil
import subprocess
import sys

import pytest

from tests.conftest import (
    AMONG_THE_WORKERS,
    ONE_LEG_ONLY,
    REAL_SECONDS,
    leg_of,
    runs_serially,
)
from tests.processes import ROOT, project_env


def servers_missing() -> str | None:
    for tool in ("pg_isready", "createdb", "dropdb", "psql", "redis-cli", "flock"):
        if not shutil.which(tool):
            return f"{tool} is not on the PATH"
    if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1", "-p", "5432"], check=False).returncode:
        return "no PostgreSQL on 127.0.0.1:5432"
    if subprocess.run(["redis-cli", "-h", "127.0.0.1", "ping"], capture_output=True, check=False).returncode:
        return "no Redis on 127.0.0.1:6379"
    return None


needs_servers = pytest.mark.skipif(bool(servers_missing()), reason=str(servers_missing()))
SHOW = 'echo "$DATABASE_URL $REDIS_URL"; psql -h 127.0.0.1 -U postgres -Atc "SELECT current_database()" "$DATABASE_URL"'


def isolated(*command: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [str(ROOT / ".ci" / "isolated"), *command],
        cwd=ROOT,
        env=project_env(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def databases() -> set[str]:
    listed = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-Atc", "SELECT datname FROM pg_database"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(listed.stdout.split())


@needs_servers
def test_two_runs_at_once_get_their_own_database_and_redis_index_and_leave_nothing_behind():
    runs = [isolated("sh", "-c", f"{SHOW}; sleep 2") for _ in range(2)]
    outputs = [run.communicate(timeout=60) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    chosen = [stdout.split() for stdout, _ in outputs]  # [database URL, Redis URL, the database connected to]
    names = [url.rsplit("/", 1)[1] for url, _, _ in chosen]
    indexes = [int(redis.rsplit("/", 1)[1]) for _, redis, _ in chosen]
    assert [connected for _, _, connected in chosen] == names and names[0] != names[1]
    assert all(name.startswith("ci_") for name in names)
    assert indexes[0] != indexes[1] and all(1 <= index <= 15 for index in indexes)
    # Only these runs' own databases: other runs on the host (and this suite's workers) make and drop theirs.
    assert not {*names, *(f"test_{name}" for name in names)} & databases()


@needs_servers
def test_the_commands_failure_is_the_runs_and_is_cleaned_up_too():
    run = isolated("sh", "-c", f"{SHOW}; exit 3")
    stdout, _ = run.communicate(timeout=60)
    name = stdout.split()[0].rsplit("/", 1)[1]
    assert run.returncode == 3 and name.startswith("ci_")
    assert not {name, f"test_{name}"} & databases()


@needs_servers
def test_ci_redis_db_is_taken_when_no_run_holds_it_and_0_is_refused():
    held = isolated("sh", "-c", f"{SHOW}; sleep 2")
    index = held.stdout.readline().split()[1].rsplit("/", 1)[1]  # printed once its index is held
    busy = isolated("true", CI_REDIS_DB=index)
    assert (
        busy.wait(timeout=60) == 1 and f"Redis database {index} is held by another run." in busy.stderr.read()
    )
    held.communicate(timeout=60)
    again = isolated("sh", "-c", SHOW, CI_REDIS_DB=index)
    assert again.communicate(timeout=60)[0].split()[1] == f"redis://127.0.0.1:6379/{index}"
    zero = isolated("true", CI_REDIS_DB="0")
    assert zero.wait(timeout=60) == 2 and "from 1 to 15 (0 is left alone)" in zero.stderr.read()


@pytest.mark.parametrize(
    "entry",
    [entry for entries in ONE_LEG_ONLY.values() for entry in entries] + [*AMONG_THE_WORKERS, *REAL_SECONDS],
)
def test_every_one_leg_entry_names_a_test_file_or_folder_and_function_that_exists(entry):
    path, _, function = entry.partition("::")
    assert (ROOT / path).exists(), entry
    if function:
        tree = ast.parse((ROOT / path).read_text())
        assert function in {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}, entry


def test_the_tests_with_servers_of_their_own_run_one_at_a_time_and_the_rest_in_the_workers():
    assert all(leg_of(entry) for entry in AMONG_THE_WORKERS)
    assert runs_serially("tests/browser/test_job_page.py::test_x")
    assert runs_serially("tests/config/test_deadline.py::test_x")
    assert not runs_serially("tests/apikit/test_sliding_window_redis.py::test_x")
    assert runs_serially(REAL_SECONDS[0]) and not runs_serially("tests/access/test_tokens.py::test_x")
    assert not runs_serially("tests/config/test_settings.py::test_x")
    assert not runs_serially("tests/test_fuzz.py::test_no_query_is_a_5xx[/api/v1]")
    assert not runs_serially("tests/config/test_health.py::test_healthy_when_database_and_cache_answer")


def test_the_longest_entry_decides_and_everything_else_runs_on_both_legs():
    assert leg_of("tests/browser/test_job_page.py::test_x") == "sqlite"
    assert leg_of("tests/browser/test_rate_limits.py::test_x") == "postgres"
    assert leg_of("tests/test_fuzz.py::test_no_query_is_a_5xx[/api/v1]") == "postgres"
    assert leg_of("tests/config/test_health.py::test_healthy_when_database_and_cache_answer") is None


def collected(*paths: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *paths],
        cwd=ROOT,
        env=project_env(DJANGO_SETTINGS_MODULE="tests.settings", **env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_each_leg_collects_its_own_tests_and_both_legs_together_all_of_them():
    paths = (
        "tests/config/test_health.py",
        "tests/browser/test_rate_limits.py",
        "tests/browser/test_job_page.py",
    )
    runs = {leg: collected(*paths, CI_LEG=leg) for leg in ("", "sqlite", "postgres")}
    ids = {leg: {line for line in run.stdout.splitlines() if "::" in line} for leg, run in runs.items()}
    assert all(run.returncode == 0 for run in runs.values()), runs
    assert ids["sqlite"] | ids["postgres"] == ids[""]
    assert {leg_of(nodeid) for nodeid in ids["sqlite"] - ids["postgres"]} == {"sqlite"}
    assert {leg_of(nodeid) for nodeid in ids["postgres"] - ids["sqlite"]} == {"postgres"}
    assert (
        "tests/config/test_health.py::test_healthy_when_database_and_cache_answer"
        in ids["sqlite"] & ids["postgres"]
    )
    # `make test`'s two parts, `-m serial` and `-m "not serial"`, take every test between them: pytest's
    # `not` is the rest, so the mark must sit on exactly the tests that run one at a time.
    serial = collected(*paths, "-m", "serial", CI_LEG="")
    assert (
        {line for line in serial.stdout.splitlines() if "::" in line}
        == {nodeid for nodeid in ids[""] if runs_serially(nodeid)}
        != set()
    )


def test_an_unknown_leg_is_refused():
    run = collected("tests/config/test_health.py", CI_LEG="mysql")
    assert (
        run.returncode != 0
        and "CI_LEG must be one of sqlite, postgres, not 'mysql'" in run.stdout + run.stderr
    )
