"""A fixed-rate (open-loop) HTTP load of `make bench`, wrk2-style: request i is due at t0 + i / rate whatever
happened to the requests before it, and its latency is measured from that due time, so a slow answer
counts for every request it held up (no coordinated omission).

Requests go out on keep-alive connections from a pool (LIFO, so the fewest stay warm); a request finding
no idle connection opens one, up to `connections`, so a slow answer does not delay later sends. A server
that closes after each answer (gunicorn's sync worker) just costs a new connection per request. The
client's own lag (due time → the moment it started the request) is measured too: if the client itself
falls behind its schedule, the report shows it rather than blaming the server.

asyncio and a small HTTP/1.1 reader rather than httpx or locust: a few percent of one core at 200
requests/s on a 2-core machine that also runs the servers (docs/benchmarks.md says why)."""

import asyncio
import math
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

REQUEST_TIMEOUT = 10.0  # seconds; a request without an answer by then counts as an error


@dataclass(frozen=True)
class Target:
    host: str
    port: int
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""

    def request_bytes(self) -> bytes:
        body = self.body.encode()
        lines = [f"{self.method} {self.path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += [f"{name}: {value}" for name, value in self.headers.items()]
        if body or self.method not in ("GET", "HEAD"):
            lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@dataclass
class FixedRateResult:
    rate: float  # requests per second asked for
    scheduled: int
    latencies: list[float] = field(default_factory=list)  # seconds, due time → whole answer read
    lags: list[float] = field(default_factory=list)  # seconds, due time → request started (the client's own)
    statuses: Counter = field(default_factory=Counter)
    errors: int = 0  # no answer: refused, reset, timed out, unreadable
    connections_opened: int = 0
    elapsed: float = 0.0  # first due time → last answer or error
    client_cpu: float = 0.0  # seconds of this process's CPU during the run

    @property
    def answered(self) -> int:
        return sum(self.statuses.values())

    @property
    def achieved_rate(self) -> float:
        return self.answered / self.elapsed if self.elapsed else 0.0

    @property
    def too_many_requests(self) -> int:
        return self.statuses[429]

    @property
    def non_2xx(self) -> int:
        """Answers outside 2xx other than 429, which is counted on its own."""
        return sum(
            count for status, count in self.statuses.items() if not 200 <= status < 300 and status != 429
        )

    def latency_ms(self, percent: float) -> float:
        return 1000 * percentile(self.latencies, percent)

    def lag_ms(self, percent: float) -> float:
        return 1000 * percentile(self.lags, percent)


def percentile(values: Sequence[float], percent: float) -> float:
    """Nearest rank: the smallest value that at least `percent` % of the values do not exceed (100: the
    maximum), as HdrHistogram reports it; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


class _ServerClosed(Exception):
    """A reused connection was closed by the server before any byte of the answer came."""


async def _read_answer(reader: asyncio.StreamReader) -> tuple[int, bool]:
    """Reads one HTTP/1.x answer (Content-Length, chunked, or up to the close): its status, and whether the
    connection may carry another request."""
    status_line = await reader.readline()
    if not status_line:
        raise _ServerClosed
    version, status = status_line.split(b" ", 2)[:2]
    headers: dict[bytes, bytes] = {}
    while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip().lower()
    connection = headers.get(b"connection", b"")
    keep_alive = connection == b"keep-alive" if version == b"HTTP/1.0" else connection != b"close"
    if b"content-length" in headers:
        await reader.readexactly(int(headers[b"content-length"]))
    elif b"chunked" in headers.get(b"transfer-encoding", b""):
        while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
            await reader.readexactly(size + 2)
        while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers
            pass
    else:
        await reader.read()
        keep_alive = False
    return int(status), keep_alive


class _Pool:
    def __init__(self, target: Target, connections: int, max_idle: float, result: FixedRateResult):
        self.target, self.max_idle, self.result = target, max_idle, result
        self.slots = asyncio.Semaphore(connections)
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]] = []
        self.request = target.request_bytes()

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        self.result.connections_opened += 1
        return await asyncio.open_connection(self.target.host, self.target.port)

    def _take_idle(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        # one idle longer than half the server's keep-alive may be closed under our feet: drop it
        while self.idle:
            reader, writer, since = self.idle.pop()
            if time.perf_counter() - since < self.max_idle and not reader.at_eof():
                return reader, writer
            writer.close()
        return None

    async def send(self) -> int:
        async with self.slots:
            reused = self._take_idle()
            reader, writer = reused or await self._open()
            try:
                try:
                    status, keep_alive = await self._exchange(reader, writer)
                except (_ServerClosed, ConnectionResetError, BrokenPipeError):
                    if reused is None:
                        raise
                    writer.close()  # the server closed an idle connection as we sent: once more, on a new one
                    reader, writer = await self._open()
                    status, keep_alive = await self._exchange(reader, writer)
            except BaseException:
                writer.close()
                raise
            if keep_alive:
                self.idle.append((reader, writer, time.perf_counter()))
            else:
                writer.close()
            return status

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> tuple[int, bool]:
        writer.write(self.request)
        await writer.drain()
        return await _read_answer(reader)

    def close(self) -> None:
        for _, writer, _ in self.idle:
            writer.close()
        self.idle.clear()


async def _run(target: Target, rate: float, seconds: float, connections: int, max_idle: float):
    total = max(1, round(rate * seconds))
    result = FixedRateResult(rate=rate, scheduled=total)
    pool = _Pool(target, connections, max_idle, result)
    last_done = 0.0

    async def one(due: float) -> None:
        nonlocal last_done
        result.lags.append(time.perf_counter() - due)
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                status = await pool.send()
        except (
            OSError,
            TimeoutError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            ValueError,
            _ServerClosed,
        ):
            result.errors += 1
        else:
            result.statuses[status] += 1
            result.latencies.append(time.perf_counter() - due)
        last_done = max(last_done, time.perf_counter())

    cpu_before = time.process_time()
    start = time.perf_counter() + 0.05
    tasks = []
    for number in range(total):
        due = start + number / rate
        if (delay := due - time.perf_counter()) > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(due)))
    await asyncio.gather(*tasks)
    pool.close()
    result.elapsed = last_done - start
    result.client_cpu = time.process_time() - cpu_before
    return result


def fixed_rate(
    target: Target, *, rate: float, seconds: float, connections: int = 256, max_idle: float = 1.0
) -> FixedRateResult:
    """Sends rate × seconds requests at a fixed rate and waits for every answer (or its timeout).
    `max_idle`: seconds after which an idle connection is not reused (below the server's keep-alive)."""
    return asyncio.run(_run(target, rate, seconds, connections, max_idle))
