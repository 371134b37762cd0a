"""Versions of the data each process keeps in memory (tariffs, API tokens, the lead-time policy): a number per
kind in the shared cache, replaced by whoever changes the data once the change commits. A process trusts its
copy while the version it saw still holds. The rate limiter's one Redis round trip brings every version
along (`keys`, `observe`), so an API request checks them all for free; otherwise a process asks the shared
cache at most once every REFRESH_SECONDS. A cache that cannot be asked raises: the caller reads the database.
"""

import math
import random
import time

from django.core.cache import cache

REFRESH_SECONDS = 1.0
_registered: list[str] = []
_seen: dict[str, int | None] = {}  # by cache key; None: never set (a fresh or flushed cache)
_seen_at = -math.inf  # time.monotonic() of the last look at the shared values


class SharedVersion:
    def __init__(self, name: str):
        self.key = f"version:{name}"
        _registered.append(self.key)

    def current(self) -> int | None:
        """The shared version, as of this request's rate-limit round trip or at most a second ago."""
        if time.monotonic() - _seen_at >= REFRESH_SECONDS or self.key not in _seen:
            observe(cache.get_many(_registered))
        return _seen[self.key]

    def bump(self) -> None:
        """Call once a change has committed: every process drops its copy on its next check."""
        value = random.getrandbits(62)  # not a counter: a flushed cache must not bring an old number back
        cache.set(self.key, value, timeout=None)
        _seen[self.key] = value  # this process knows at once


def keys() -> list[str]:
    """Every registered version's cache key, for a caller that reads them on its own round trip."""
    return list(_registered)


def observe(values: dict[str, int | None]) -> None:
    """The shared values of `keys()` as just read (a missing key is None)."""
    global _seen_at
    _seen.update({key: values.get(key) for key in _registered})
    _seen_at = time.monotonic()


def forget() -> None:
    """Forget what this process saw, so the next check asks the shared cache (tests clear the cache)."""
    global _seen_at
    _seen.clear()
    _seen_at = -math.inf
