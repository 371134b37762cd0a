"""At most `limit` hits in ANY `window` seconds per key (a sliding log, docs/decisions.md §7), not per
fixed window, which lets twice the limit through across a window boundary. On Redis one Lua script does
the whole count in one round trip, on the server's clock, so every worker shares one exact count; with
the process-local cache (the embedded default, one process) the same rule runs under a lock. The same
round trip reads a few more keys for the caller (the shared versions), so that costs no trip of its own."""

import hashlib
import itertools
import math
import os
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.cache import caches
from django_redis.cache import RedisCache
from hiredis import pack_command
from redis.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError

from apikit.cache import BreakerRedisCache

# KEYS[1..n] the logs, KEYS[n+1..] keys to read; ARGV n, the cost (how many hits: all or none of them are
# counted, in every log), a unique member, then each log's limit and window in microseconds. A hit is
# counted only if every log has room for it. Returns {allowed, count and reset_us of each log, values of
# KEYS[n+1..]}.
SCRIPT = """
local n, cost, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local counts, allowed = {}, 1
for log = 1, n do
  redis.call('ZREMRANGEBYSCORE', KEYS[log], '-inf', now - tonumber(ARGV[3 + 2 * log]))
  counts[log] = redis.call('ZCARD', KEYS[log])
  if counts[log] + cost > tonumber(ARGV[2 + 2 * log]) then allowed = 0 end
end
local answer = {allowed}
for log = 1, n do
  local window = tonumber(ARGV[3 + 2 * log])
  if allowed == 1 then
    for index = 1, cost do redis.call('ZADD', KEYS[log], now, member .. ':' .. index) end
    counts[log] = counts[log] + cost
  end
  redis.call('PEXPIRE', KEYS[log], math.ceil(window / 1000))
  local oldest = redis.call('ZRANGE', KEYS[log], 0, 0, 'WITHSCORES')
  local reset = window
  if oldest[2] then reset = tonumber(oldest[2]) + window - now end
  answer[#answer + 1] = counts[log]
  answer[#answer + 1] = reset
end
if #KEYS > n then
  local values = redis.call('MGET', unpack(KEYS, n + 1))
  for index = 1, #values do answer[#answer + 1] = values[index] end
end
return answer
"""
SCRIPT_SHA = hashlib.sha1(SCRIPT.encode(), usedforsecurity=False).hexdigest()  # what EVALSHA names
_local_lock = threading.Lock()
_own = threading.local()  # this thread's connection to the shared cache, for the count alone
_members = itertools.count()  # next() is atomic: threads never share a number
_prefix: tuple[int | None, str] = (None, "")  # the process whose members carry the prefix, and the prefix


@dataclass(frozen=True)
class Window:
    """One log: at most `limit` hits under `key` in any `seconds`."""

    key: str
    limit: int
    seconds: int


@dataclass(frozen=True)
class Count:
    allowed: bool  # whether this hit was counted (in every log it was asked for)
    count: int  # hits in the window, this one included if allowed
    reset: int  # seconds until the oldest counted hit leaves the window (one more is then allowed)
    read: dict[str, int | None] = field(default_factory=dict)  # the integer values of `read` keys


def hit(key: str, *, limit: int, window: int, read: Sequence[str] = (), cost: int = 1) -> Count:
    """Count `cost` hits for `key` unless they would make more than `limit` in the last `window` seconds
    (then none is counted), and read the integers stored under the cache keys `read`. Raises the cache
    backend's own error when the shared cache cannot be reached (the caller fails open)."""
    return hit_all([Window(key, limit, window)], read=read, cost=cost)[0]


def hit_all(windows: list[Window], *, read: Sequence[str] = (), cost: int = 1) -> list[Count]:
    """`hit` for several logs at once (a client counted both alone and with its address): the hits are
    counted in all of them or, when any one is full, in none. One Count per window, in their order."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return _redis_hit(backend, windows, list(read), cost)
    logs = [Window(f"ratelimit:{item.key}", item.limit, item.seconds) for item in windows]
    return _local_hit(backend, logs, list(read), cost)


def _redis_hit(backend: RedisCache, windows: list[Window], read: list[str], cost: int) -> list[Count]:
    connection = _connection_to(backend)
    logs = [backend.make_key(f"ratelimit:{window.key}") for window in windows]
    limits = [number for window in windows for number in (window.limit, window.seconds * 1_000_000)]
    keys = [*logs, *map(backend.make_key, read)]
    allowed, *answer = _evalsha(connection, keys, [len(logs), cost, _member(), *limits])
    values = answer[2 * len(logs) :]
    shared = {name: None if value is None else int(value) for name, value in zip(read, values, strict=True)}
    return [
        Count(bool(allowed), int(count), max(0, math.ceil(int(reset_us) / 1_000_000)), shared)
        for count, reset_us in zip(answer[0 : 2 * len(logs) : 2], answer[1 : 2 * len(logs) : 2], strict=True)
    ]


def _evalsha(connection: AbstractConnection, keys: list[str], args: list) -> list:
    """The script on this thread's own connection: redis-py's pooled path costs about 20 µs more CPU per
    call (a lock and a readiness poll per checkout, its retry machinery), a twentieth of a warm request
    (docs/benchmarks.md). No retry: a count that failed half-way may have been made, and the caller fails
    open. A connection left mid-answer is closed, so no later call reads it."""
    # hiredis's C encoder: redis-py's Python one cost twice as much as the round trip's own work
    script = pack_command(("EVALSHA", SCRIPT_SHA, len(keys), *keys, *args))
    try:
        try:
            connection.send_packed_command([script], check_health=False)
            return connection.read_response()
        except NoScriptError:  # a fresh or flushed server: load the script once, on the same connection
            load = pack_command(("SCRIPT", "LOAD", SCRIPT))  # type: ignore[arg-type]  # hiredis's stub takes a 1-tuple
            connection.send_packed_command([load], check_health=False)
            connection.read_response()
            connection.send_packed_command([script], check_health=False)
            return connection.read_response()
    except BaseException:  # an error, a timeout, or a sync worker's abort mid-answer
        connection.disconnect()
        raise


def _member() -> str:
    """A log member no other hit has, from any process on any host: a random prefix made once per process
    and a count (a fresh UUID per hit cost as much as the rest of the count's own work)."""
    global _prefix
    pid, prefix = _prefix
    if pid != os.getpid():  # a forked worker must not repeat its parent's members
        _prefix = pid, prefix = os.getpid(), uuid.uuid4().hex
    return f"{prefix}:{next(_members)}"


def _connection_to(backend: RedisCache) -> AbstractConnection:
    """This thread's connection to the cache's server with its client's settings (address, TLS, password,
    database, timeouts); made again for another cache, or in a forked process. Raises while the cache's
    circuit breaker skips Redis, as every other cache operation then does."""
    if isinstance(backend, BreakerRedisCache) and backend.skipped:
        raise RedisConnectionError("The shared cache is skipped after a failure.")
    held = getattr(_own, "held", None)
    if held is None or held[0] is not backend or held[2] != os.getpid():
        pool = backend.client.get_client(write=True).connection_pool
        held = _own.held = (backend, pool.connection_class(**pool.connection_kwargs), os.getpid())
    return held[1]


def _local_hit(backend, logs: list[Window], read: list[str], cost: int) -> list[Count]:
    now = time.monotonic()
    with _local_lock:  # one process: the lock makes read-count-write atomic
        hits = [[at for at in backend.get(log.key, []) if at > now - log.seconds] for log in logs]
        allowed = all(len(found) + cost <= log.limit for found, log in zip(hits, logs, strict=True))
        for found, log in zip(hits, logs, strict=True):
            if allowed:
                found.extend([now] * cost)
            backend.set(log.key, found, log.seconds)
    shared = {name: backend.get(name) for name in read}
    # window minus the age, not oldest + window - now: that sum rounds (60 s could read as 61)
    return [
        Count(
            allowed,
            len(found),
            max(0, math.ceil(log.seconds - (now - found[0]))) if found else log.seconds,
            shared,
        )
        for found, log in zip(hits, logs, strict=True)
    ]
