"""The shared cache where an outage must cost a provider call or a check, never the answer: its errors
(they differ by backend: redis, the breaker …) are logged and read as a miss."""

import logging

from django.core.cache import cache

logger = logging.getLogger(__name__)


def read(key: str, *, what: str):
    """What the cache keeps under `key`; None when it does not answer. `what`: whose entry, for the log."""
    try:
        return cache.get(key)
    except Exception:
        logger.warning("Shared cache unavailable: %s not read", what, exc_info=True)
        return None


def keep(key: str, value: object, seconds: int | None, *, what: str) -> None:
    """`value` under `key` for `seconds` (None: until evicted); nothing when the cache does not answer."""
    try:
        cache.set(key, value, seconds)
    except Exception:
        logger.warning("Shared cache unavailable: %s not kept", what, exc_info=True)
