"""The threaded worker's request deadline (chauffeur/deadline.py), behind a real gunicorn with the project's
gunicorn.conf.py: keep-alive, a request interrupted in Python code (the thread is freed, the worker stays),
one blocked in C (answered for it, the worker recycled once its other requests are done)."""

import http.client
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import requests

from tests.chauffeur.test_faults import (
    assert_every_surface_answers_in_its_format,
    production_env,
    silent_listener,
    timed,
)
from tests.processes import gunicorn

TEST_VIEWS = "/api/v1/deadline-test"


def deadline_env(tmp_path: Path) -> dict[str, str]:
    # The suite's database where a run names one (CI's PostgreSQL run), else a SQLite file of its own:
    # only the health check asks a database anything here.
    database = os.environ.get("DATABASE_URL", f"sqlite:///{tmp_path / 'deadline.sqlite3'}")
    env = production_env(database) | {"DJANGO_SETTINGS_MODULE": "tests.chauffeur.deadline_settings"}
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


def test_a_request_busy_in_python_past_its_deadline_answers_and_frees_its_thread(tmp_path):
    options = ("--timeout", "2", "--threads", "1")
    with gunicorn(tmp_path, deadline_env(tmp_path), *options, workers=1) as (base, log):
        before = worker_pid(base)
        answer, took = timed(lambda: requests.get(f"{base}{TEST_VIEWS}/spin?seconds=60", timeout=30))
        assert_internal_error(answer)
        assert 2 <= took < 4, took  # the deadline, not the minute the view wanted
        # The one thread serves again, in the same worker: no restart.
        assert worker_pid(base) == before
        assert "Request deadline" not in log.read_text()
        assert f"worker=<{before}> status=500" in log.read_text()


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
