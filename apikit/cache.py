"""The shared cache (django-redis) behind a circuit breaker: after one connection failure or timeout the
process skips Redis for a few seconds, so a hanging Redis costs one short socket timeout, not one per
cache call (docs/decisions.md §2, README "Failure behaviour"). Every cache user already treats an error
as a miss; the breaker only makes the error immediate."""

import logging
from collections.abc import Callable
from typing import Any

from circuitbreaker import CircuitBreaker, CircuitBreakerError
from django_redis.cache import RedisCache
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

DEFAULT_BREAK_SECONDS = 5
# One breaker per Redis address in the process: threads and cache instances share what they learned.
_breakers: dict[str, tuple[CircuitBreaker, Callable[..., Any]]] = {}  # each breaker and the call it guards

__all__ = ["BreakerRedisCache", "CircuitBreakerError"]


def _is_outage(exc_type: type[BaseException], exc: BaseException) -> bool:
    """Only an unreachable or silent server opens the breaker; a command error (a bug) does not."""
    cause = exc.__cause__ if issubclass(exc_type, ConnectionInterrupted) else exc
    return isinstance(cause, RedisConnectionError | RedisTimeoutError | OSError)


def _invoke(method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return method(*args, **kwargs)


def _guarded_call(location: str, seconds: int) -> Callable[..., Any]:
    if location not in _breakers:
        breaker = CircuitBreaker(
            failure_threshold=1, recovery_timeout=seconds, expected_exception=_is_outage, name=location
        )
        _breakers[location] = breaker, breaker.decorate(_invoke)
    return _breakers[location][1]


class _Guarded:
    """The django-redis client with every operation routed through the breaker."""

    def __init__(self, client: Any, call: Callable[..., Any]):
        self._client, self._call = client, call

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if not callable(attribute) or name == "close":  # closing must work while Redis is away
            return attribute

        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return self._call(attribute, *args, **kwargs)
            except ConnectionInterrupted as error:
                if _is_outage(type(error), error):
                    logger.warning("Shared cache failed; skipping it for a few seconds")  # once per trip
                raise

        return guarded


class BreakerRedisCache(RedisCache):
    """django-redis's RedisCache; OPTIONS["BREAK_SECONDS"] (5) is how long Redis is skipped after a failure.
    While skipped, every operation raises CircuitBreakerError at once."""

    @property
    def client(self) -> Any:
        seconds = self._params.get("OPTIONS", {}).get("BREAK_SECONDS", DEFAULT_BREAK_SECONDS)
        return _Guarded(super().client, _guarded_call(str(self._server), seconds))

    @property
    def skipped(self) -> bool:
        """Whether Redis is skipped now, after a failure: every operation would raise at once."""
        held = _breakers.get(str(self._server))
        return held is not None and held[0].opened
