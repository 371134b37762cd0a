"""The threaded worker's request deadline (config/deadline.py), behind a real gunicorn with the project's
gunicorn.conf.py: keep-alive, a request past its deadline stopped at its next database statement (its thread freed,
the worker kept), one blocked in C or busy without a statement (answered for, its PostgreSQL connection cut,
the worker recycled once its other requests are done)."""

import http.client
import os
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
import requests

from tests.config.test_faults import (
    assert_every_surface_answers_in_its_format,
    production_env,
    silent_listener,
    timed,
)
from tests.processes import gunicorn

TEST_VIEWS = "/api/v1/deadline-test"
DATABASE_URL = os.environ.get("DATABASE_URL", "")


def deadline_env(tmp_path: Path) -> dict[str, str]:
    # The suite's database where a run names one (CI's PostgreSQL run), else a SQLite file of its own:
    # only the health check asks a database anything here.
    database = DATABASE_URL or f"sqlite:///{tmp_path / 'deadline.sqlite3'}"
    env = production_env(database) | {"DJANGO_SETTINGS_MODULE": "tests.config.deadline_settings"}
    if "REDIS_URL" in os.environ:
        env["REDIS_URL"] = os.environ["REDIS_URL"]
    return env


def worker_pid(base: str) -> int:
    answer = requests.get(f"{base}{TEST_VIEWS}/worker", timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["pid"]


def assert_internal_error(answer: requests.Response) -> None:
    assert answer.status_code == 500, answer.text
    assert answer.headers["Content-Type"] == "application/problem+json"
    assert answer.json()["code"] == "internal_error"


def test_one_connection_carries_several_requests_to_one_worker(tmp_path):
    with gunicorn(tmp_path, deadline_env(tmp_path), workers=2) as (base, log):
        connection = http.client.HTTPConnection(urlsplit(base).netloc, timeout=10)
        pids, sockets = [], set()
        for _ in range(5):
            connection.request("GET", f"{TEST_VIEWS}/worker")
            answer = connection.getresponse()
            assert answer.status == 200
            assert answer.getheader("Connection", "").lower() != "close"
            pids.append(int(answer.read().decode().split(":")[1].rstrip("}")))
            sockets.add(id(connection.sock))
        connection.close()
    assert len(sockets) == 1 and connection.sock is None  # never reopened: the server kept it alive
    assert len(set(pids)) == 1, pids
    assert log.read_text().count(f"worker=<{pids[0]}> status=200") >= 5


def rows(base: str, marker: str) -> list[str]:
    answer = requests.get(f"{base}{TEST_VIEWS}/rows", params={"marker": marker}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["rows"]


def test_a_request_past_its_deadline_stops_at_its_next_statement_and_commits_nothing(tmp_path):
    options = ("--timeout", "2", "--threads", "1")
    with gunicorn(tmp_path, deadline_env(tmp_path), *options, workers=1) as (base, log):
        before = worker_pid(base)
        marker = f"spun-{uuid.uuid4().hex}"
        query = {"marker": marker, "how": "spin", "seconds": "2.5", "then": "insert"}
        answer, took = timed(lambda: requests.get(f"{base}{TEST_VIEWS}/write", params=query, timeout=30))
        assert_internal_error(answer)
        assert 2.5 <= took < 3.5, took  # at the statement after the spin, before the watchdog would answer
        assert rows(base, marker) == []  # the first row rolled back with its transaction
        # The one thread serves again, in the same worker: no restart, nothing raised into it.
        assert worker_pid(base) == before
        assert "Request deadline" not in log.read_text()


def test_an_inner_block_cut_at_its_deadline_rolls_back_to_its_savepoint_when_the_outer_one_goes_on(tmp_path):
    # Code that catches an inner block's failure commits the outer block's own writes, never the inner's.
    options = ("--timeout", "2", "--threads", "1")
    with gunicorn(tmp_path, deadline_env(tmp_path), *options, workers=1) as (base, _):
        marker = f"nested-{uuid.uuid4().hex}"
        query = {"marker": marker, "seconds": "2.5"}
        answer = requests.get(f"{base}{TEST_VIEWS}/write-nested", params=query, timeout=30)
        assert answer.status_code == 200, answer.text
        assert rows(base, marker) == [f"{marker}-outer"]


def test_a_request_that_never_reaches_a_statement_is_answered_for_and_the_worker_recycled(tmp_path):
    # Two threads, as deployed: the other one closes the connection the first worker_pid call left behind,
    # which with one thread would wait behind the stuck request until the graceful stop.
    options = ("--timeout", "2", "--threads", "2")
    with gunicorn(tmp_path, deadline_env(tmp_path), *options, workers=1) as (base, log):
        before = worker_pid(base)
        answer, took = timed(lambda: requests.get(f"{base}{TEST_VIEWS}/spin?seconds=60", timeout=30))
        assert_internal_error(answer)
        assert answer.headers["Connection"] == "close"
        assert 2 < took < 5, took  # deadline + grace, not the minute the view wanted
        assert worker_pid(base) != before
        assert f"{TEST_VIEWS}/spin still blocked" in log.read_text()


def test_a_request_blocked_in_c_is_answered_for_and_the_worker_recycled_after_its_other_requests(tmp_path):
    options = ("--timeout", "3", "--threads", "2")
    with gunicorn(tmp_path, deadline_env(tmp_path), *options, workers=1) as (base, log):
        before = worker_pid(base)
        answers: dict[str, tuple[requests.Response, float]] = {}

        def get(name: str, query: str) -> None:
            answers[name] = timed(lambda: requests.get(f"{base}{TEST_VIEWS}/block?{query}", timeout=30))

        stuck = threading.Thread(target=get, args=("stuck", "seconds=60"))
        stuck.start()
        time.sleep(2)
        # Started before the stuck one is answered, finishing after that, 0.5 s inside its own deadline.
        neighbour = threading.Thread(target=get, args=("neighbour", "seconds=2.5"))
        neighbour.start()
        stuck.join(timeout=30)
        neighbour.join(timeout=30)

        answer, took = answers["stuck"]
        assert_internal_error(answer)
        assert answer.headers["Connection"] == "close"
        assert 3 < took < 6, took  # deadline + grace, not the minute
        answer, took = answers["neighbour"]
        assert answer.status_code == 200, answer.text
        assert answer.json()["pid"] == before and took >= 2.5

        after = worker_pid(base)  # queued until the fresh worker accepts it
        assert after != before
        text = log.read_text()
        assert f"{TEST_VIEWS}/block still blocked" in text
        assert text.count("Booting worker") == 2, text


@pytest.mark.skipif(not DATABASE_URL.startswith("postgres"), reason="a socket to cut: PostgreSQL's")
def test_a_stuck_transaction_loses_its_locks_with_the_answer_and_cannot_commit_when_its_thread_wakes(
    tmp_path,
):
    options = ("--timeout", "5", "--threads", "2")
    with gunicorn(tmp_path, deadline_env(tmp_path), *options, workers=1) as (base, log):
        marker = f"stuck-{uuid.uuid4().hex}"
        assert rows(base, marker) == []  # the probe table made before the requests race for it
        answers: dict[str, tuple[requests.Response, float]] = {}

        def get(name: str, path: str, query: dict[str, str]) -> None:
            answers[name] = timed(
                lambda: requests.get(f"{base}{TEST_VIEWS}/{path}", params=query, timeout=30)
            )

        # Blocked in C past its deadline (5 s), answered for at about 6-7 s; it wakes at 8 s and goes
        # straight to its COMMIT, while the neighbour (inside its own deadline) keeps the worker alive.
        stuck_query = {"marker": marker, "how": "block", "seconds": "8", "then": "commit"}
        stuck = threading.Thread(target=get, args=("stuck", "write", stuck_query))
        stuck.start()
        time.sleep(4)
        neighbour = threading.Thread(target=get, args=("neighbour", "block", {"seconds": "4.5"}))
        neighbour.start()
        stuck.join(timeout=30)
        answer, took = answers["stuck"]
        assert_internal_error(answer)
        assert took < 7.8, took  # answered before the thread woke
        # The row it wrote is no longer locked: the server ended its transaction when its socket was cut.
        with psycopg.connect(DATABASE_URL, autocommit=False) as database:
            database.execute("SET lock_timeout = '2s'")
            database.execute("INSERT INTO deadline_probe (marker) VALUES (%s)", [marker])
            database.rollback()
        neighbour.join(timeout=30)
        answer, took = answers["neighbour"]
        assert answer.status_code == 200 and took >= 4.5, answer.text
        assert rows(base, marker) == []  # its COMMIT after waking failed on the cut connection
        text = log.read_text()
        assert f"{TEST_VIEWS}/write still blocked" in text
        assert "could not be cut" not in text


def test_sync_workers_chosen_on_the_command_line_still_answer_a_timed_out_request_in_its_format(tmp_path):
    # gunicorn's own timeout and the worker_abort hook, as before the threaded default. Each timed-out
    # request costs a worker boot here, so the bound is wider than test_faults' for the threaded worker.
    url_without_timeout = "postgres://u@127.0.0.1:{port}/d?connect_timeout=60"
    options = ("--timeout", "2", "--worker-class", "sync", "--threads", "1")
    with (
        silent_listener() as (port, _),
        gunicorn(
            tmp_path, production_env(url_without_timeout.format(port=port)), *options, any_answer=True
        ) as (
            base,
            log,
        ),
    ):
        assert_every_surface_answers_in_its_format(base, bound=20, database_down=False)
    assert "Using worker: sync" in log.read_text()


def test_first_requests_arriving_together_in_fresh_threaded_workers_all_answer(tmp_path):
    # The catalog and the OpenAPI document are generated on first use; drf-spectacular's lazy loading of
    # its extensions failed when two threads of a fresh worker did it at once (a 500).
    with gunicorn(tmp_path, deadline_env(tmp_path), "--threads", "4", workers=2) as (base, _):
        paths = ["/api/v1", "/openapi.json"] * 8
        with ThreadPoolExecutor(max_workers=len(paths)) as pool:
            statuses = list(
                pool.map(lambda path: requests.get(f"{base}{path}", timeout=30).status_code, paths)
            )
    assert statuses == [200] * len(paths), statuses
