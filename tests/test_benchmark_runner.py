"""`make bench`'s own machinery (benchmarks/run.py, benchmarks/fixed_rate.py), without loading any server
for long: the fixed-rate client against a tiny local HTTP server, its percentiles, the server settings read
from a gunicorn configuration, and the resident-memory reading. No assertion on how fast anything is."""

import os
import runpy
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from gunicorn.workers.base import Worker
from gunicorn.workers.gthread import ThreadWorker
from uvicorn.config import Config

from benchmarks.fixed_rate import FixedRateResult, Target, fixed_rate, percentile
from benchmarks.peers.uvicorn_nodelay import bind_socket_without_nagle
from benchmarks.run import GUNICORN_CONF, MCP_LABEL, fixed_rate_table, resident_memory, server_settings
from tests.processes import free_port


class DeadlineLikeWorker(ThreadWorker):
    """Stands for a worker class of our own built on gunicorn's gthread worker."""


class UnknownWorker(Worker):
    """Neither sync nor gthread: the runner cannot give the peers an equivalent."""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive unless an answer says otherwise
    disable_nagle_algorithm = True
    slow_requests_left = 0  # the next so many /slow requests take SLOW_SECONDS
    requests_seen = 0

    def do_GET(self):
        type(self).requests_seen += 1
        if self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
            return
        if self.path == "/slow" and type(self).slow_requests_left > 0:
            type(self).slow_requests_left -= 1
            time.sleep(SLOW_SECONDS)
        status = {"/limited": 429, "/broken": 500}.get(self.path, 200)
        body = b'{"ok": true}'
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        if self.path == "/closing":
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200 if body == b'{"jsonrpc": "2.0"}' else 400)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


SLOW_SECONDS = 0.3


@pytest.fixture
def server() -> Iterator[int]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    Handler.requests_seen, Handler.slow_requests_left = 0, 0
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def test_percentiles_are_nearest_rank():
    values = [float(value) for value in range(100, 0, -1)]  # unsorted on purpose
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile(values, 99.5) == 100.0
    assert percentile(values, 100) == 100.0
    assert percentile(values, 0) == 1.0
    assert percentile([7.0], 99) == 7.0
    assert percentile([], 99) == 0.0


def test_every_scheduled_request_is_answered_and_timed_on_kept_alive_connections(server):
    result = fixed_rate(Target("127.0.0.1", server, "GET", "/"), rate=100, seconds=0.5)

    assert result.scheduled == 50
    assert Handler.requests_seen == 50
    assert result.statuses == {200: 50}
    assert (result.non_2xx, result.too_many_requests, result.errors) == (0, 0, 0)
    assert len(result.latencies) == len(result.lags) == 50
    assert min(result.latencies) > 0
    assert result.latency_ms(100) == 1000 * max(result.latencies)
    assert result.connections_opened < 50  # answers came back on connections used again
    assert result.achieved_rate > 0


def test_a_slow_answer_does_not_hold_back_the_requests_due_after_it(server):
    Handler.slow_requests_left = 1
    result = fixed_rate(Target("127.0.0.1", server, "GET", "/slow"), rate=50, seconds=0.4)

    assert result.statuses == {200: 20}
    assert result.connections_opened >= 2  # the next requests went out on other connections meanwhile
    # the slow one is counted from its due time: at least the server's own delay
    assert result.latency_ms(100) >= 1000 * SLOW_SECONDS


def test_429_is_counted_apart_from_the_other_non_2xx(server):
    limited = fixed_rate(Target("127.0.0.1", server, "GET", "/limited"), rate=100, seconds=0.2)
    broken = fixed_rate(Target("127.0.0.1", server, "GET", "/broken"), rate=100, seconds=0.2)

    assert (limited.too_many_requests, limited.non_2xx, limited.errors) == (20, 0, 0)
    assert (broken.too_many_requests, broken.non_2xx, broken.errors) == (0, 20, 0)


def test_chunked_answers_closing_servers_and_bodies_are_handled(server):
    chunked = fixed_rate(Target("127.0.0.1", server, "GET", "/chunked"), rate=100, seconds=0.2)
    closing = fixed_rate(Target("127.0.0.1", server, "GET", "/closing"), rate=100, seconds=0.2)
    body = '{"jsonrpc": "2.0"}'
    posted = fixed_rate(
        Target("127.0.0.1", server, "POST", "/api/mcp", {"Content-Type": "application/json"}, body),
        rate=100,
        seconds=0.2,
    )

    assert chunked.statuses == {200: 20}
    assert chunked.connections_opened < 20
    assert closing.statuses == {200: 20}
    assert closing.connections_opened == 20  # one new connection per request, as with gunicorn's sync worker
    assert posted.statuses == {200: 20}  # the server read exactly the body sent


def test_no_server_means_errors_not_answers():
    result = fixed_rate(Target("127.0.0.1", free_port(), "GET", "/"), rate=100, seconds=0.1)

    assert result.errors == result.scheduled == 10
    assert result.statuses == {}
    assert result.latencies == []


def write_conf(tmp_path, text: str):
    path = tmp_path / "gunicorn.conf.py"
    path.write_text(text)
    return path


def test_sync_settings_give_the_peers_sync_workers_with_the_same_counts(tmp_path):
    settings = server_settings(
        write_conf(tmp_path, 'workers = 3\nkeepalive = 7\ntimeout = 20\naccesslog = "-"\n')
    )

    assert (settings.peer_worker_class, settings.workers, settings.threads) == ("sync", 3, 1)
    assert settings.worker_class == "gunicorn.workers.sync.SyncWorker"
    options = settings.gunicorn_options()
    assert options[options.index("--worker-class") + 1] == "sync"
    assert options[options.index("--workers") + 1] == "3"
    assert options[options.index("--keep-alive") + 1] == "7"
    assert options[options.index("--timeout") + 1] == "20"
    assert options[options.index("--access-logfile") + 1] == "-"
    assert settings.uvicorn_options() == ["--workers", "3", "--timeout-keep-alive", "7"]


@pytest.mark.parametrize(
    ("worker_class", "resolved"),
    [
        ("gthread", "gunicorn.workers.gthread.ThreadWorker"),
        (f"{__name__}.DeadlineLikeWorker", f"{__name__}.DeadlineLikeWorker"),
        (
            "sync",
            "gunicorn.workers.gthread.ThreadWorker",
        ),  # gunicorn's own rule: sync with threads is gthread
    ],
)
def test_threaded_settings_give_the_peers_gunicorns_gthread_worker(tmp_path, worker_class, resolved):
    conf = write_conf(tmp_path, f'worker_class = "{worker_class}"\nworkers = 2\nthreads = 4\nkeepalive = 5\n')

    settings = server_settings(conf)

    assert (settings.worker_class, settings.peer_worker_class) == (resolved, "gthread")
    options = settings.gunicorn_options()
    assert options[options.index("--threads") + 1] == "4"
    assert "--access-logfile" not in options  # the configuration logs no access, so neither do the peers
    assert "--no-access-log" in settings.uvicorn_options()
    assert "gthread" in settings.describe() and resolved in settings.describe()


def test_a_worker_class_without_a_gunicorn_equivalent_stops_the_run(tmp_path):
    with pytest.raises(SystemExit, match="UnknownWorker"):
        server_settings(write_conf(tmp_path, f'worker_class = "{__name__}.UnknownWorker"\n'))


def test_the_projects_configuration_is_what_the_runner_reads(monkeypatch):
    monkeypatch.setenv("WEB_CONCURRENCY", "4")

    settings = server_settings(GUNICORN_CONF)

    configured = runpy.run_path(str(GUNICORN_CONF))
    assert settings.workers == configured["workers"] == 4
    assert settings.keepalive == configured["keepalive"]
    assert settings.timeout == configured["timeout"]
    assert settings.peer_worker_class in {"sync", "gthread"}


def test_the_sdk_peers_uvicorn_accepts_connections_with_nagles_algorithm_off():
    # uvicorn --workers binds the listener itself and leaves Nagle on (Kludex/uvicorn#3149): every answer
    # after the first on a kept-alive connection then waits ~44 ms for the client's delayed ACK.
    config = Config(app="benchmarks.peers.mcp_sdk:app", host="127.0.0.1", port=0)
    with bind_socket_without_nagle(config) as listener:
        assert listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        listener.listen()  # as the worker's server does
        with socket.create_connection(listener.getsockname(), timeout=5):
            accepted, _ = listener.accept()
            with accepted:  # the option the worker's connections inherit
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_resident_memory_reads_the_master_and_each_child():
    script = (
        "import subprocess, sys, time\n"
        "children = [subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']) for _ in range(2)]\n"
        "print(*(child.pid for child in children), flush=True)\n"
        "time.sleep(60)\n"
    )
    master = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    children = [int(pid) for pid in master.stdout.readline().split()]
    try:
        memory = resident_memory(master.pid)
    finally:
        for pid in children:
            os.kill(pid, signal.SIGKILL)
        master.kill()
        master.wait()

    assert len(memory.workers_kib) == 2
    assert memory.master_kib > 0
    assert all(kib > 0 for kib in memory.workers_kib)


def test_the_fixed_rate_table_says_when_the_client_fell_behind():
    on_time = FixedRateResult(rate=200, scheduled=100, latencies=[0.002] * 100, lags=[0.001] * 100)
    late = FixedRateResult(rate=200, scheduled=100, latencies=[0.030] * 100, lags=[0.020] * 100)
    on_time.statuses[200] = late.statuses[200] = 100
    on_time.elapsed = late.elapsed = 0.5

    assert "NOTE" not in fixed_rate_table({("/api/v1/price", "this project"): on_time})
    table = fixed_rate_table({("/api/v1/price", "this project"): on_time, (MCP_LABEL, "this project"): late})
    assert "started requests up to 20.0 ms late" in table
    assert "| /api/v1/price | this project | 200.0 | 2.0 | 2.0 | 2.0 | 100 | 0 | 0 | 0 |" in table
