"""At most `limit` hits in ANY `window` seconds per key (a sliding log, docs/decisions.md §7), not per
fixed window, which lets twice the limit through across a window boundary. On Redis one Lua script does
the whole count in one round trip, on the server's clock, so every worker shares one exact count; with
the process-local cache (the embedded default, one process) the same rule runs under a lock. The same
round trip reads a few more keys for the caller (the shared versions), so that costs no trip of its own."""

import math
import threading
import time
import uuid
from dataclasses import dataclass, field

from django.core.cache import caches
from django_redis.cache import RedisCache

# KEYS[1] the log, KEYS[2..] keys to read; ARGV limit, window in microseconds, a unique member, the cost
# (how many hits: all or none of them are counted). Returns {allowed, count, reset_us, values of KEYS[2..]}.
SCRIPT = """
local key, limit, window = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count, cost = redis.call('ZCARD', key), tonumber(ARGV[4])
local allowed = 0
if count + cost <= limit then
  for index = 1, cost do redis.call('ZADD', key, now, ARGV[3] .. ':' .. index) end
  count = count + cost
  allowed = 1
end
redis.call('PEXPIRE', key, math.ceil(window / 1000))
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
local answer = {allowed, count, reset}
if #KEYS > 1 then
  local values = redis.call('MGET', unpack(KEYS, 2))
  for index = 1, #values do answer[3 + index] = values[index] end
end
return answer
"""
_local_lock = threading.Lock()


@dataclass(frozen=True)
class Count:
    allowed: bool
    count: int  # hits in the window, this one included if allowed
    reset: int  # seconds until the oldest counted hit leaves the window (one more is then allowed)
    read: dict[str, int | None] = field(default_factory=dict)  # the integer values of `read` keys


def hit(key: str, *, limit: int, window: int, read: list[str] = (), cost: int = 1) -> Count:
    """Count `cost` hits for `key` unless they would make more than `limit` in the last `window` seconds
    (then none is counted), and read the integers stored under the cache keys `read`. Raises the cache
    backend's own error when the shared cache cannot be reached (the caller fails open)."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return _redis_hit(backend, f"ratelimit:{key}", limit, window, read, cost)
    return _local_hit(backend, f"ratelimit:{key}", limit, window, read, cost)


def _redis_hit(backend: RedisCache, key: str, limit: int, window: int, read: list[str], cost: int) -> Count:
    client = backend.client.get_client(write=True)
    allowed, count, reset_us, *values = client.register_script(SCRIPT)(
        keys=[backend.make_key(name) for name in [key, *read]],
        args=[limit, window * 1_000_000, uuid.uuid4().hex, cost],
    )
    return Count(
        bool(allowed),
        int(count),
        max(0, math.ceil(int(reset_us) / 1_000_000)),
        {name: None if value is None else int(value) for name, value in zip(read, values, strict=True)},
    )


def _local_hit(backend, key: str, limit: int, window: int, read: list[str], cost: int) -> Count:
    now = time.monotonic()
    with _local_lock:  # one process: the lock makes read-count-write atomic
        hits = [at for at in backend.get(key, []) if at > now - window]
        allowed = len(hits) + cost <= limit
        if allowed:
            hits.extend([now] * cost)
        backend.set(key, hits, window)
    # window minus the age, not oldest + window - now: that sum rounds (60 s could read as 61)
    reset = max(0, math.ceil(window - (now - hits[0]))) if hits else window
    return Count(allowed, len(hits), reset, {name: backend.get(name) for name in read})
