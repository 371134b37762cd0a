"""`make run`'s supervisor (config/devserver.py): the web server and a worker start together on the
embedded defaults (SQLite), and Ctrl-C stops both."""

import os
import re
import signal
import subprocess
import sys

import requests

from tests.jobqueue.mailserver import wait_for
from tests.processes import ROOT, free_port, migrated_sqlite, project_env


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_ctrl_c_stops_the_web_server_and_the_worker(tmp_path):
    env = {"DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3", "DJANGO_DEBUG": "true"}
    migrated_sqlite(tmp_path / "db.sqlite3")
    port, log = free_port(), tmp_path / "devserver.log"
    with log.open("w") as output:
        supervisor = subprocess.Popen(
            [sys.executable, "-m", "config.devserver", str(port)],
            cwd=ROOT,
            env=project_env(**env),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        base = f"http://127.0.0.1:{port}"

        def answers(path: str) -> bool:
            try:
                return requests.get(f"{base}{path}", timeout=5).status_code == 200
            except requests.RequestException:
                return False

        wait_for(lambda: answers("/healthz"), 90, "the web server")
        wait_for(lambda: answers("/healthz/worker"), 90, "the worker's heartbeat")  # the worker runs too
        web, worker = map(int, re.search(r"web pid (\d+), worker pid (\d+)", log.read_text()).groups())
        supervisor.send_signal(signal.SIGINT)  # what Ctrl-C sends
        assert supervisor.wait(timeout=60) == 0, log.read_text()
        assert gone(web) and gone(worker), log.read_text()
        assert not answers("/healthz")
    finally:
        if supervisor.poll() is None:
            supervisor.kill()
            supervisor.wait()
