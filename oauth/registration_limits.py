"""The budget of dynamic client registration per client address (docs/agents/oauth.md, "Registration
limits"). A hosted assistant registers a client for each of its users from a few shared addresses, so
only registrations that succeed count against OAUTH_REGISTRATION_RATE_LIMIT; refused ones count apart,
against the smaller OAUTH_REGISTRATION_FAILURE_RATE_LIMIT, so nobody probes the rules without end.
Counted in the shared cache (sliding windows, as the rate limiter's); with the cache down, nothing is
counted (fail open, as the rate limiter does)."""

import logging

from django.conf import settings

from apikit import sliding_window

logger = logging.getLogger(__name__)

SUCCESS_POLICY, FAILURE_POLICY = "registration", "registration-failures"


class RegistrationLimited(Exception):
    """A budget is spent: `retry_after` seconds until one more is allowed."""

    def __init__(self, policy: str, limit: int, window: int, retry_after: int):
        super().__init__(policy)
        self.policy, self.limit, self.window, self.retry_after = policy, limit, window, retry_after

    def headers(self) -> dict[str, str]:
        return {
            "Retry-After": str(self.retry_after),
            "RateLimit-Policy": f'"{self.policy}";q={self.limit};w={self.window}',
            "RateLimit": f'"{self.policy}";r=0;t={self.retry_after}',
        }


def require_room(address: str) -> None:
    """RegistrationLimited unless this address may register one more client now (nothing is counted)."""
    _hit(SUCCESS_POLICY, address, cost=0)


def count_success(address: str) -> None:
    """Count a registration about to be stored; RegistrationLimited (nothing counted) when the budget is
    spent."""
    _hit(SUCCESS_POLICY, address, cost=1)


def count_failure(address: str) -> None:
    """Count a refused registration; RegistrationLimited when the failures' budget was spent already."""
    _hit(FAILURE_POLICY, address, cost=1)


def _hit(policy: str, address: str, *, cost: int) -> None:
    limit = (
        settings.OAUTH_REGISTRATION_RATE_LIMIT
        if policy == SUCCESS_POLICY
        else settings.OAUTH_REGISTRATION_FAILURE_RATE_LIMIT
    )
    window = settings.OAUTH_REGISTRATION_RATE_LIMIT_WINDOW_SECONDS
    try:
        count = sliding_window.hit(f"oauth-{policy}:{address}", limit=limit, window=window, cost=cost)
    except Exception:  # the cache backend's own errors differ (redis, breaker …)
        logger.warning("Registration budget unavailable: the shared cache does not answer")
        return
    if not count.allowed or count.count + 1 - cost > limit:  # with cost 0: room for one more
        raise RegistrationLimited(policy, limit, window, max(1, count.reset))
