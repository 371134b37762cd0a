"""Versions of the data each process keeps in memory (tariffs, API tokens, the lead-time policy): a number per
kind in the shared cache, replaced by whoever changes the data once the change commits. A process trusts its
copy while the version it saw still holds. The rate limiter's one Redis round trip brings every version
along (`keys`, `observe`), so an API request checks them all for free; otherwise a process asks the shared
cache at most once every REFRESH_SECONDS. A cache that cannot be asked raises: the caller reads the database.
"""

import logging
import math
import random
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from django.core.cache import cache
from django_tasks import task

logger = logging.getLogger(__name__)
T = TypeVar("T")

REFRESH_SECONDS = 1.0
_registered: list[str] = []
_versions: dict[str, "SharedVersion"] = {}
_copies: list["KeptCopy"] = []
_seen: dict[str, int | None] = {}  # by cache key; None: never set (a fresh or flushed cache)
_seen_at = -math.inf  # time.monotonic() of the last look at the shared values


class SharedVersion:
    def __init__(self, name: str):
        self.key = f"version:{name}"
        _registered.append(self.key)
        _versions[self.key] = self

    def current(self) -> int | None:
        """The shared version, as of this request's rate-limit round trip or at most a second ago."""
        if time.monotonic() - _seen_at >= REFRESH_SECONDS or self.key not in _seen:
            observe(cache.get_many(_registered))
        return _seen[self.key]

    def bump(self) -> None:
        """Call once a change has committed: every process drops its copy on its next check. Raises when
        the shared cache cannot be reached."""
        value = random.getrandbits(62)  # not a counter: a flushed cache must not bring an old number back
        cache.set(self.key, value, timeout=None)
        _seen[self.key] = value  # this process knows at once

    def announce(self) -> None:
        """`bump`, for a staff edit that has committed: with the shared cache unreachable the edit stands,
        this process forgets its copies, and a queued job moves the version once the cache is back (until
        then the other processes read the database, as they do without the cache)."""
        try:
            self.bump()
        except Exception:
            _seen.pop(self.key, None)
            for copy in _copies:
                if copy.version is self:
                    copy.drop()
            logger.warning("%s not moved: the shared cache is unreachable; a job retries", self.key)
            move_shared_version.enqueue(self.key)


@task()
def move_shared_version(key: str) -> None:
    """The job `announce` queues: raises while the shared cache is still unreachable, so the worker retries
    with its backoff."""
    shared_version(key).bump()


class KeptCopy(Generic[T]):
    """A process's copy of data read by `load` (e.g. the tariffs from their tables), kept while `version`
    holds. When the version cannot be read, the data is loaded afresh each time: correct, at a query's cost.
    """

    def __init__(self, version: SharedVersion, load: Callable[[], T]):
        self.version, self.load = version, load
        self._kept: tuple[int | None, T] | None = None
        self._lock = threading.Lock()
        _copies.append(self)

    def get(self) -> T:
        try:
            version = self.version.current()
        except Exception:
            logger.warning("No %s from the shared cache; reading afresh", self.version.key, exc_info=True)
            return self.load()
        kept = self._kept
        if kept is not None and kept[0] == version:
            return kept[1]
        with self._lock:
            if self._kept is None or self._kept[0] != version:
                # Tagged with the version read *before* loading: a change committed meanwhile moves the
                # version again, so this copy is replaced at the next check rather than kept stale.
                self._kept = (version, self.load())
            return self._kept[1]

    def drop(self) -> None:
        self._kept = None


def shared_version(key: str) -> SharedVersion:
    return _versions[key]


def keys() -> list[str]:
    """Every registered version's cache key, for a caller that reads them on its own round trip."""
    return list(_registered)


def observe(values: dict[str, int | None]) -> None:
    """The shared values of `keys()` as just read (a missing key is None)."""
    global _seen_at
    _seen.update({key: values.get(key) for key in _registered})
    _seen_at = time.monotonic()


def forget() -> None:
    """Forget what this process saw and kept, so the next check asks the shared cache and every copy is
    read again (tests clear the cache and roll the database back)."""
    global _seen_at
    _seen.clear()
    _seen_at = -math.inf
    for copy in _copies:
        copy.drop()
