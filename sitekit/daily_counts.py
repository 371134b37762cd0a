"""Counts per day in Europe/Vienna in the shared cache, so all workers count one day (a provider's daily
budget of calls): a day's key names the day, and a new day starts at zero on a new key."""

from datetime import date

from django.core.cache import cache
from django.utils import timezone

# A day's counter outlives its day by one.
COUNTER_TTL = 2 * 24 * 3600


def count(name: str) -> int:
    """Count one more `name` today; today's count. Raises when the shared cache does not answer."""
    key = _key(name, timezone.localdate())
    try:
        return cache.incr(key)  # atomic in Redis; keeps the key's expiry
    except ValueError:  # the day's first
        if cache.add(key, 1, COUNTER_TTL):
            return 1
        return cache.incr(key)  # another worker's first came between


def counted_today(name: str) -> int | None:
    """Today's count of `name`; None when the shared cache does not answer."""
    try:
        return cache.get(_key(name, timezone.localdate()), 0)
    except Exception:
        return None


def first_today(name: str) -> bool:
    """True once a day for `name`, whichever worker asks first (a day's one alert); True when the shared
    cache does not answer (an alert too many rather than none)."""
    try:
        return cache.add(f"{_key(name, timezone.localdate())}:once", True, COUNTER_TTL)
    except Exception:
        return True


def _key(name: str, day: date) -> str:
    return f"{name}:{day.isoformat()}"
