"""`make bench`: the project and its peers side by side, on this machine, in one run, loaded by one client.

- the project as production runs it: gunicorn per config/gunicorn.conf.py, DEBUG off, PostgreSQL, Redis,
  a bearer token on every request (its per-token limit raised so that no reply is a 429);
- "bare Django": plain views doing the same domain work (benchmarks/peers/bare_django);
- "idiomatic DRF": APIViews + serializers, DB TokenAuthentication, UserRateThrottle on Redis (drf_app);
- "MCP SDK": the official MCP Python SDK server, stateless JSON, under uvicorn (benchmarks/peers/mcp_sdk.py).

The Django peers run with the server settings the project's gunicorn configuration gives (read through
gunicorn's own loader): its worker count, threads and keep-alive, with gunicorn's `gthread` worker when the
project's worker class is a ThreadWorker (e.g. one adding a request deadline of our own), `sync` when it
is a SyncWorker; the SDK server runs under uvicorn with as many workers and the same keep-alive, and with
TCP_NODELAY on its listener as gunicorn has it (benchmarks/peers/uvicorn_nodelay.py). So the
ratios compare the code, not the server settings. Every peer's answer is first checked to equal the
project's. All servers are started at once; each endpoint is then loaded on each server in turn (rows
compared with each other run back to back) with wrk (2 threads, 32 connections) after a warm-up; server CPU
is the CPU time of the server's processes during the run, per request. The whole saturation pass runs
several rounds: a row prints its median, a ratio the median of the rounds' ratios with their range, since
one round on a shared 2-core machine swings a ratio by a third either way.

Then a fixed-rate run below saturation (benchmarks/fixed_rate.py: open loop, latency from each request's
due time, wrk2-style) on the price endpoint and MCP tools/call of every server that serves them, and last
each server's resident memory (VmRSS of its master and of each worker, the master's children).

Environment: BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/bench, created if missing),
BENCH_REDIS_URL (redis://127.0.0.1:6379/5), BENCH_SECONDS (5 per endpoint and server and round),
BENCH_ROUNDS (3), BENCH_RATE (200 requests/s) and BENCH_RATE_SECONDS (30) for the fixed-rate run.
Run: make bench   (or .venv/bin/python benchmarks/run.py)"""

import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import psycopg
import redis
import requests
from gunicorn.app.base import Application
from gunicorn.workers.gthread import ThreadWorker
from gunicorn.workers.sync import SyncWorker

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.fixed_rate import FixedRateResult, Target, fixed_rate  # noqa: E402
from tests.processes import free_port, project_env  # noqa: E402

DATABASE_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5")
SECONDS = int(os.environ.get("BENCH_SECONDS", "5"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
RATE = float(os.environ.get("BENCH_RATE", "200"))
RATE_SECONDS = float(os.environ.get("BENCH_RATE_SECONDS", "30"))
GUNICORN_CONF = ROOT / "config" / "gunicorn.conf.py"
WARM_UP_SECONDS = 2
THREADS, CONNECTIONS = 2, 32
SECRET_KEY = "benchmark-only-secret-key-" + "x" * 40
WRK_SCRIPT = ROOT / "benchmarks" / "wrk_report.lua"
PROJECT, BARE, DRF, SDK = "this project", "bare Django", "idiomatic DRF", "MCP SDK server"

# Fixed dates keep every answer the same from run to run (and comparable between servers).
PICKUP, BOOKED = "2026-11-21T14:30:00+01:00", "2026-11-20T10:00:00+01:00"
READS = {
    "/api/v1/price": {
        "vehicleClass": "first",
        "distanceKm": "243.7",
        "inZoneA": "false",
        "waitMinutes": "40",
    },
    "/api/v1/distance": {"from": "Stephansplatz", "to": "Flughafen Wien", "pickupDatetime": PICKUP},
    "/api/v1/places": {"input": "hotel sa"},
    "/api/v1/availability": {"pickupDatetime": PICKUP, "bookingDatetime": BOOKED},
}
PRICE_ARGUMENTS = {"distanceKm": 243.7, "vehicleClass": "first", "inZoneA": False, "waitMinutes": 40}
MCP_CALL = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "booking.calculate_price", "arguments": PRICE_ARGUMENTS},
    }
)
MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}
MCP_LABEL = "MCP tools/call price"


@dataclass(frozen=True)
class Load:
    label: str  # the row's name: a path, or MCP_LABEL
    path: str
    method: str = "GET"
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Server:
    name: str
    command: list[str]
    env: dict[str, str]
    loads: list[Load]
    uvicorn: bool = False  # takes --host and --port, where gunicorn takes --bind


@dataclass(frozen=True)
class Result:
    requests: int
    seconds: float
    non_2xx: int
    socket_errors: int
    p50_ms: float
    p99_ms: float
    cpu_ms_per_request: float

    @property
    def ok_per_second(self) -> float:
        return (self.requests - self.non_2xx) / self.seconds


def median_row(rounds: list[dict[tuple[str, str], Result]], key: tuple[str, str]) -> dict[str, float]:
    """A row's figures over the rounds: the median of each (the non-2xx and socket errors summed)."""
    results = [results[key] for results in rounds]

    def median(figure) -> float:
        return statistics.median(figure(result) for result in results)

    return {
        "ok_per_second": median(lambda result: result.ok_per_second),
        "p50_ms": median(lambda result: result.p50_ms),
        "p99_ms": median(lambda result: result.p99_ms),
        "cpu_ms_per_request": median(lambda result: result.cpu_ms_per_request),
        "non_2xx": sum(result.non_2xx for result in results),
        "socket_errors": sum(result.socket_errors for result in results),
    }


def main() -> None:
    if shutil.which("wrk") is None:
        sys.exit(
            "make bench needs wrk, the HTTP load generator, and it is not installed.\n"
            "On Debian/Ubuntu: sudo apt-get install -y wrk   (macOS: brew install wrk)"
        )
    check_services()
    settings = server_settings()
    token, peer_token = prepare_project(), prepare_drf_peer()
    servers = define_servers(settings, token, peer_token)
    print(header(settings))
    with tempfile.TemporaryDirectory(prefix="bench-") as logs, ExitStack() as stack:
        # All servers up at once (an idle one costs nothing), loaded one after the other endpoint by
        # endpoint: the rows compared with each other run within a minute, under the same machine load.
        started = {server.name: stack.enter_context(running(server, Path(logs))) for server in servers}
        expected: dict[str, object] = {}
        for server in servers:
            for load in server.loads:
                check_answer(server.name, started[server.name][0], load, expected)
        rounds = [measure_round(servers, started, number) for number in range(1, ROUNDS + 1)]
        steady = measure_fixed_rate(servers, started, settings)
        memory = {server.name: resident_memory(started[server.name][1]) for server in servers}
        # apikit/ratelimit.py logs this when Redis did not answer within its timeout
        fail_opens = started[PROJECT][2].read_text().count("requests pass uncounted")
    print(table(rounds, servers))
    print(ratios(rounds))
    print(fixed_rate_table(steady))
    print(memory_table(memory))
    print(targets(rounds, steady))
    print(
        f"the project's rate limiter skipped Redis {fail_opens} times (each time for 5 s in one worker: "
        "Redis answered slower than the 50 ms timeout, so those requests passed uncounted)"
    )
    print(f"load average after: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


def measure_round(
    servers: list[Server], started: dict[str, tuple[str, int, Path]], number: int
) -> dict[tuple[str, str], Result]:
    """Each endpoint on each server in turn, so the rows compared with each other run back to back."""
    results: dict[tuple[str, str], Result] = {}
    for label in [*READS, MCP_LABEL]:
        for server in servers:
            base, pid, _ = started[server.name]
            for load in (load for load in server.loads if load.label == label):
                result = results[label, server.name] = measure(base, load, server_pid=pid)
                print(
                    f"  round {number}  {server.name:<16} {label:<24} {result.ok_per_second:6.0f} req/s",
                    file=sys.stderr,
                )
    return results


def check_services() -> None:
    """PostgreSQL and Redis answer; the benchmark database exists (created if not)."""
    parts = urlsplit(DATABASE_URL)
    name = parts.path.lstrip("/")
    admin_url = parts._replace(path="/postgres").geturl()
    try:
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as connection:
            if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
                connection.execute(f'CREATE DATABASE "{name}"')
        redis.Redis.from_url(REDIS_URL, socket_timeout=5).ping()
    except (psycopg.Error, redis.RedisError) as error:
        sys.exit(f"make bench needs PostgreSQL and Redis ({DATABASE_URL}, {REDIS_URL}): {error}")


@dataclass(frozen=True)
class ServerSettings:
    """What the project's gunicorn configuration sets for its server, and what the peers run with."""

    worker_class: str  # the project's, as gunicorn resolves it (dotted path)
    peer_worker_class: str  # gunicorn's own class for the Django peers: "gthread" or "sync"
    workers: int
    threads: int
    keepalive: int  # seconds an idle keep-alive connection stays open
    timeout: int
    accesslog: str | None

    def gunicorn_options(self) -> list[str]:
        """The Django peers' command-line options: the project's settings, gunicorn's own worker class."""
        options = [
            "--worker-class",
            self.peer_worker_class,
            "--workers",
            str(self.workers),
            "--threads",
            str(self.threads),
            "--keep-alive",
            str(self.keepalive),
            "--timeout",
            str(self.timeout),
        ]
        return [*options, "--access-logfile", self.accesslog] if self.accesslog else options

    def uvicorn_options(self) -> list[str]:
        options = ["--workers", str(self.workers), "--timeout-keep-alive", str(self.keepalive)]
        return options if self.accesslog else [*options, "--no-access-log"]

    def describe(self) -> str:
        access = "access log on" if self.accesslog else "no access log"
        threads = f"{self.threads} thread{'' if self.threads == 1 else 's'}"
        return (
            f"the project: gunicorn -c {GUNICORN_CONF.relative_to(ROOT)}, worker class {self.worker_class}, "
            f"{self.workers} workers × {threads}, keep-alive {self.keepalive} s, timeout "
            f"{self.timeout} s, {access}\n"
            f"Django peers: gunicorn worker class {self.peer_worker_class}, {self.workers} workers × "
            f"{threads}, keep-alive {self.keepalive} s, timeout {self.timeout} s, {access}\n"
            f"MCP SDK server: uvicorn with TCP_NODELAY, {self.workers} workers, "
            f"keep-alive {self.keepalive} s, {access}"
        )


class _ConfigurationFile(Application):
    """gunicorn's own reading of a configuration file (the names it knows, validated), without the command
    line or GUNICORN_CMD_ARGS."""

    def __init__(self, path: Path):
        self.path = path
        super().__init__()

    def load_config(self) -> None:
        self.load_config_from_file(str(self.path))

    def load(self):  # never serves
        raise NotImplementedError


def server_settings(path: Path = GUNICORN_CONF) -> ServerSettings:
    """The project's server settings, read from its gunicorn configuration as gunicorn reads them (so
    WEB_CONCURRENCY, and `sync` with threads > 1 becoming gthread, apply as in production)."""
    config = _ConfigurationFile(path).cfg
    worker = config.worker_class
    if issubclass(worker, ThreadWorker):
        peer_worker_class = "gthread"
    elif issubclass(worker, SyncWorker):
        peer_worker_class = "sync"
    else:
        sys.exit(f"make bench knows gunicorn's sync and gthread workers and their subclasses, not {worker}")
    return ServerSettings(
        worker_class=f"{worker.__module__}.{worker.__qualname__}",
        peer_worker_class=peer_worker_class,
        workers=config.workers,
        threads=config.threads,
        keepalive=config.keepalive,
        timeout=config.timeout,
        accesslog=config.accesslog,
    )


def project_environment() -> dict[str, str]:
    return project_env(DJANGO_SECRET_KEY=SECRET_KEY, DATABASE_URL=DATABASE_URL, REDIS_URL=REDIS_URL)


def peer_environment(settings: str) -> dict[str, str]:
    return {
        **project_environment(),
        "DJANGO_SETTINGS_MODULE": f"benchmarks.peers.{settings}.settings",
        "PYTHONPATH": str(ROOT),
    }


def run(command: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def prepare_project() -> str:
    """Migrated database (seeded tariffs) and a read token whose own limit no run can reach."""
    env = project_environment()
    run([sys.executable, "manage.py", "migrate", "--noinput", "--verbosity", "0"], env)
    issued = run(
        [
            sys.executable,
            "manage.py",
            "issue_token",
            "benchmark",
            "--scope",
            "booking.read",
            "--rate-limit",
            "2000000000",
        ],
        env,
    )
    return issued.strip().splitlines()[-1]


def prepare_drf_peer() -> str:
    """The peer's tables (DRF's authtoken) in the same database, and its user's token."""
    env = peer_environment("drf_app")
    run([sys.executable, "-m", "django", "migrate", "--noinput", "--verbosity", "0"], env)
    script = (
        "from django.contrib.auth.models import User\n"
        "from rest_framework.authtoken.models import Token\n"
        "user, _ = User.objects.get_or_create(username='benchmark-peer')\n"
        "print(Token.objects.get_or_create(user=user)[0].key)"
    )
    return run([sys.executable, "-m", "django", "shell", "-c", script], env).strip().splitlines()[-1]


def define_servers(settings: ServerSettings, token: str, peer_token: str) -> list[Server]:
    project = [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF.relative_to(ROOT))]
    # the peers get the project's settings but neither its hooks nor its worker class (our own code)
    gunicorn = [sys.executable, "-m", "gunicorn", *settings.gunicorn_options()]
    django_app = "django.core.wsgi:get_wsgi_application()"

    def reads(headers: dict[str, str]) -> list[Load]:
        return [Load(path, f"{path}?{urlencode(query)}", headers=headers) for path, query in READS.items()]

    mcp = Load(MCP_LABEL, "/api/mcp", "POST", MCP_CALL, {**MCP_HEADERS, "Authorization": f"Bearer {token}"})
    return [
        Server(
            PROJECT,
            [*project, "config.wsgi"],
            project_environment(),
            [*reads({"Authorization": f"Bearer {token}"}), mcp],
        ),
        Server(BARE, [*gunicorn, django_app], peer_environment("bare_django"), reads({})),
        Server(
            DRF,
            [*gunicorn, django_app],
            peer_environment("drf_app"),
            reads({"Authorization": f"Token {peer_token}"}),
        ),
        # uvicorn with Nagle's algorithm off, as gunicorn has it (benchmarks/peers/uvicorn_nodelay.py)
        Server(
            SDK,
            [
                sys.executable,
                "-m",
                "benchmarks.peers.uvicorn_nodelay",
                "benchmarks.peers.mcp_sdk:app",
                *settings.uvicorn_options(),
            ],
            peer_environment("bare_django"),
            [Load(MCP_LABEL, "/mcp", "POST", MCP_CALL, MCP_HEADERS)],
            uvicorn=True,
        ),
    ]


@contextmanager
def running(server: Server, logs: Path) -> Iterator[tuple[str, int, Path]]:
    """Starts a server on a free port, waits until its first load answers, and stops it (only it) at the
    end: its address, process id and log."""
    port = free_port()
    where = (
        ["--host", "127.0.0.1", "--port", str(port)] if server.uvicorn else ["--bind", f"127.0.0.1:{port}"]
    )
    log = logs / f"{server.name.replace(' ', '-')}.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            [*server.command, *where], cwd=ROOT, env=server.env, stdout=output, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, server.loads[0], process, log)
        yield base, process.pid, log
    finally:
        process.send_signal(signal.SIGTERM)  # gunicorn and uvicorn stop their workers on TERM
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def send(base: str, load: Load) -> requests.Response:
    return requests.request(
        load.method, base + load.path, data=load.body or None, headers=load.headers, timeout=10
    )


def wait_until_up(base: str, load: Load, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"the server exited:\n{log.read_text()[-3000:]}")
        try:
            send(base, load)
            return
        # not listening yet, or listening while its workers still boot (minutes on a busy 2-core machine)
        except (requests.ConnectionError, requests.Timeout):
            time.sleep(0.2)
    sys.exit(f"the server did not come up within 120 s:\n{log.read_text()[-3000:]}")


def check_answer(name: str, base: str, load: Load, expected: dict[str, object]) -> None:
    """Every server must give the project's answer (numbers compared as decimals, date-times as instants)."""
    response = send(base, load)
    if response.status_code != 200:
        sys.exit(f"{name} {load.label}: HTTP {response.status_code} {response.text[:500]}")
    answer = comparable(json.loads(response.text, parse_float=Decimal, parse_int=Decimal))
    if load.label == MCP_LABEL:
        answer = answer["result"]["structuredContent"]
    expected.setdefault(load.label, answer)
    if answer != expected[load.label]:
        sys.exit(f"{name} {load.label} answers differently from {PROJECT}:\n{answer}\n{expected[load.label]}")


def comparable(value: object) -> object:
    if isinstance(value, dict):
        return {key: comparable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [comparable(item) for item in value]
    if isinstance(value, str) and "T" in value:
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return value
    return value


def measure(base: str, load: Load, *, server_pid: int) -> Result:
    wrk(base, load, WARM_UP_SECONDS)  # every worker warm: connections open, caches filled
    cpu_before = cpu_seconds(server_pid)
    report = wrk(base, load, SECONDS)
    cpu = cpu_seconds(server_pid) - cpu_before
    return Result(
        requests=report["requests"],
        seconds=report["duration_us"] / 1e6,
        non_2xx=report["non_2xx"],
        socket_errors=report["socket_errors"],
        p50_ms=report["p50_us"] / 1000,
        p99_ms=report["p99_us"] / 1000,
        cpu_ms_per_request=1000 * cpu / max(1, report["requests"]),
    )


def wrk(base: str, load: Load, seconds: int) -> dict:
    env = {
        **os.environ,
        "BENCH_METHOD": load.method,
        "BENCH_BODY": load.body,
        "BENCH_HEADERS": "\n".join(f"{name}: {value}" for name, value in load.headers.items()),
    }
    command = [
        "wrk",
        f"-t{THREADS}",
        f"-c{CONNECTIONS}",
        f"-d{seconds}s",
        "--timeout",
        "5s",
        "-s",
        str(WRK_SCRIPT),
        base + load.path,
    ]
    output = subprocess.run(command, env=env, capture_output=True, text=True, timeout=seconds + 60).stdout
    line = next((line for line in output.splitlines() if line.startswith("BENCH ")), None)
    if line is None:
        sys.exit(f"wrk printed no summary:\n{output}")
    return json.loads(line.removeprefix("BENCH "))


def cpu_seconds(root: int) -> float:
    """User + system CPU of a process and all its descendants (gunicorn's or uvicorn's workers)."""
    parents: dict[int, int] = {}
    times: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        times[pid] = int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        tree.update(children)
        frontier.extend(children)
    return sum(times.get(pid, 0) for pid in tree) / os.sysconf("SC_CLK_TCK")


FIXED_RATE_LABELS = ("/api/v1/price", MCP_LABEL)
CLIENT_LAG_WARNING_MS = 5.0  # asyncio's timers alone make about 1 ms


def measure_fixed_rate(
    servers: list[Server], started: dict[str, tuple[str, int, Path]], settings: ServerSettings
) -> dict[tuple[str, str], FixedRateResult]:
    """Price and MCP tools/call at RATE requests/s for RATE_SECONDS on every server that serves them, one
    after the other, each after a warm-up at the same rate."""
    results: dict[tuple[str, str], FixedRateResult] = {}
    for label in FIXED_RATE_LABELS:
        for server in servers:
            for load in (load for load in server.loads if load.label == label):
                target = fixed_rate_target(started[server.name][0], load)
                # an idle connection is reused only well within the server's keep-alive
                keep = {"max_idle": settings.keepalive / 2}
                fixed_rate(target, rate=RATE, seconds=WARM_UP_SECONDS, **keep)
                result = results[label, server.name] = fixed_rate(
                    target, rate=RATE, seconds=RATE_SECONDS, **keep
                )
                print(
                    f"  fixed rate  {server.name:<16} {label:<24} {result.achieved_rate:6.0f} req/s, "
                    f"p99 {result.latency_ms(99):.1f} ms",
                    file=sys.stderr,
                )
    return results


def fixed_rate_target(base: str, load: Load) -> Target:
    address = urlsplit(base)
    return Target(address.hostname, address.port, load.method, load.path, load.headers, load.body)


@dataclass(frozen=True)
class Memory:
    master_kib: int
    workers_kib: list[int]


def resident_memory(master: int) -> Memory:
    """VmRSS of a server's master process and of each worker (its children; multiprocessing's resource
    tracker, which uvicorn's workers may start, is not a worker)."""
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except OSError:  # the process ended meanwhile
            continue
        if parent == master and b"resource_tracker" not in command:
            children.append(int(entry.name))
    return Memory(rss_kib(master), sorted(rss_kib(pid) for pid in children))


def rss_kib(pid: int) -> int:
    line = next(
        line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS:")
    )
    return int(line.split()[1])


def header(settings: ServerSettings) -> str:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown CPU",
    )
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    return (
        f"make bench, {datetime.now().astimezone():%Y-%m-%d %H:%M %Z}: {cpu}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average before: {load}\n"
        f"saturation: {ROUNDS} rounds; wrk {THREADS} threads, {CONNECTIONS} connections, {SECONDS} s per row "
        f"after {WARM_UP_SECONDS} s warm-up\n"
        f"fixed rate: {RATE:g} requests/s for {RATE_SECONDS:g} s per row after {WARM_UP_SECONDS} s at the "
        f"same rate, open loop, latency from each request's due time\n"
        f"{settings.describe()}\n"
    )


def table(rounds: list[dict[tuple[str, str], Result]], servers: list[Server]) -> str:
    lines = [
        f"Medians of {len(rounds)} rounds (non-2xx and socket errors: all rounds together)",
        "",
        "| endpoint | server | 2xx req/s | p50 ms | p99 ms | server CPU ms/req | non-2xx | socket errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label in [*READS, MCP_LABEL]:
        for server in servers:
            if (label, server.name) in rounds[0]:
                row = median_row(rounds, (label, server.name))
                lines.append(
                    f"| {label} | {server.name} | {row['ok_per_second']:,.0f} | {row['p50_ms']:.1f} | "
                    f"{row['p99_ms']:.1f} | {row['cpu_ms_per_request']:.2f} | {row['non_2xx']} | "
                    f"{row['socket_errors']} |"
                )
    return "\n".join(lines) + "\n"


def spread(values: list[float]) -> tuple[float, str]:
    """The median of the rounds' values, and it shown with their range."""
    middle = statistics.median(values)
    shown = f"{middle:.2f}" if len(values) == 1 else f"{middle:.2f} ({min(values):.2f}–{max(values):.2f})"
    return middle, shown


def throughput_ratio(rounds: list[dict[tuple[str, str], Result]], label: str, peer: str) -> tuple[float, str]:
    """This project's 2xx req/s ÷ the peer's, taken within each round (its rows ran back to back)."""
    return spread([r[label, PROJECT].ok_per_second / r[label, peer].ok_per_second for r in rounds])


def cpu_ratio(rounds: list[dict[tuple[str, str], Result]], label: str, peer: str) -> tuple[float, str]:
    """The peer's server CPU per request ÷ this project's, within each round (above 1: the project spends
    less)."""
    return spread([r[label, peer].cpu_ms_per_request / r[label, PROJECT].cpu_ms_per_request for r in rounds])


def ratios(rounds: list[dict[tuple[str, str], Result]]) -> str:
    """Throughput ratios (this project ÷ peer) and CPU ratios (peer's CPU per request ÷ the project's: above
    1, the project spends less), each the median of the rounds with their range."""

    def ratio(label: str, peer: str) -> str:
        return throughput_ratio(rounds, label, peer)[1]

    def cpu(label: str, peer: str) -> str:
        return cpu_ratio(rounds, label, peer)[1]

    lines = [
        f"Ratios: the median of {len(rounds)} rounds (their range)",
        "",
        "| endpoint | req/s ÷ bare Django | ÷ idiomatic DRF | ÷ MCP SDK server | CPU/req: bare Django ÷ ours "
        "| idiomatic DRF ÷ ours | MCP SDK ÷ ours |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label in READS:
        lines.append(
            f"| {label} | {ratio(label, BARE)}× | {ratio(label, DRF)}× | | {cpu(label, BARE)} | "
            f"{cpu(label, DRF)} | |"
        )
    lines.append(f"| {MCP_LABEL} | | | {ratio(MCP_LABEL, SDK)}× | | | {cpu(MCP_LABEL, SDK)} |")
    return "\n".join(lines) + "\n"


def fixed_rate_table(results: dict[tuple[str, str], FixedRateResult]) -> str:
    lines = [
        f"Fixed rate: {RATE:g} requests/s for {RATE_SECONDS:g} s (latency from each request's due time; the "
        "client's lag is its own delay in starting a due request, part of the latency)",
        "",
        "| endpoint | server | achieved req/s | p50 ms | p99 ms | max ms | 2xx | non-2xx | 429 | errors "
        "| connections opened | client lag p99 / max ms | client CPU |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (label, name), result in results.items():
        ok = result.answered - result.non_2xx - result.too_many_requests
        lines.append(
            f"| {label} | {name} | {result.achieved_rate:,.1f} | {result.latency_ms(50):.1f} | "
            f"{result.latency_ms(99):.1f} | {result.latency_ms(100):.1f} | {ok} | {result.non_2xx} | "
            f"{result.too_many_requests} | {result.errors} | {result.connections_opened} | "
            f"{result.lag_ms(99):.1f} / {result.lag_ms(100):.1f} | "
            f"{100 * result.client_cpu / max(result.elapsed, 1e-9):.0f} % |"
        )
    worst_lag = max(result.lag_ms(99) for result in results.values())
    if worst_lag > CLIENT_LAG_WARNING_MS:
        lines += [
            "",
            (
                f"NOTE: the client itself started requests up to {worst_lag:.1f} ms late (p99 of a row): the "
                "machine is short of CPU, so these latencies are not the servers' alone"
            ),
        ]
    return "\n".join(lines) + "\n"


def memory_table(memory: dict[str, Memory]) -> str:
    lines = [
        "Resident memory after the loads (VmRSS; workers: the master's children)",
        "",
        "| server | workers | per worker MiB, median (min–max) | master MiB |",
        "|---|---:|---:|---:|",
    ]
    for name, figures in memory.items():
        workers = [kib / 1024 for kib in figures.workers_kib]
        per_worker = (
            f"{statistics.median(workers):.1f} ({min(workers):.1f}–{max(workers):.1f})" if workers else "–"
        )
        lines.append(f"| {name} | {len(workers)} | {per_worker} | {figures.master_kib / 1024:.1f} |")
    return "\n".join(lines) + "\n"


P99_TARGET_MS = 10.0


def targets(
    rounds: list[dict[tuple[str, str], Result]], steady: dict[tuple[str, str], FixedRateResult]
) -> str:
    """The targets a run of servers can check (issue 42's throughput and CPU ratios, issue 24's latency
    below saturation), each PASS or MISS."""
    checks = []
    for name, label, peer, at_least in (
        ("price ≥ 0.5× bare Django", "/api/v1/price", BARE, 0.5),
        ("price ≥ 2× idiomatic DRF", "/api/v1/price", DRF, 2.0),
        ("MCP tools/call ≥ 1× MCP SDK server", MCP_LABEL, SDK, 1.0),
    ):
        value, shown = throughput_ratio(rounds, label, peer)
        checks.append((value >= at_least, f"{name}: {shown}× (median of the rounds, their range)"))
    value, shown = cpu_ratio(rounds, MCP_LABEL, SDK)
    checks.append(
        (
            value >= 1.0,
            f"MCP tools/call at no more server CPU per call than the SDK server: SDK ÷ ours {shown} "
            "(median of the rounds, their range)",
        )
    )
    for label in FIXED_RATE_LABELS:
        result = steady[label, PROJECT]
        failed = result.non_2xx + result.errors
        met = result.latency_ms(99) < P99_TARGET_MS and failed == 0 and result.too_many_requests == 0
        checks.append(
            (
                met,
                (
                    f"{label} p99 < {P99_TARGET_MS:g} ms at {RATE:g} requests/s, no error, no 429: "
                    f"p99 {result.latency_ms(99):.1f} ms, {failed} non-2xx or errors, "
                    f"{result.too_many_requests} × 429"
                ),
            )
        )
    return "Targets\n\n" + "\n".join(f"{'PASS' if met else 'MISS'}  {text}" for met, text in checks) + "\n"


if __name__ == "__main__":
    main()
