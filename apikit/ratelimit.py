"""The rate limit of docs/decisions.md §7 on every /api/ path and the success page: a sliding window
counted in the shared cache (`sliding_window`), answered with the IETF RateLimit header fields on every
response and 429 + Retry-After beyond the limit. A shared cache that is down or hangs is skipped for a
few seconds after each failure, and requests then pass uncounted (fail open, with a warning)."""

import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from rest_framework.exceptions import AuthenticationFailed

from apikit import sliding_window, versions
from apikit.problems import Problem, classify, early_refusal, is_api_path

logger = logging.getLogger(__name__)

POLICY_NAME = "default"
SKIP_SECONDS = 5  # after a cache failure, count nothing for this long: a hung Redis costs one timeout
_skip_until: dict[str, float] = {}  # by cache location, so one dead server does not silence another


@dataclass(frozen=True)
class Quota:
    """One budget a request is counted in: at most `limit` requests under `key` in any `window` seconds,
    named `policy` in the RateLimit header fields."""

    key: str
    limit: int
    window: int
    policy: str = POLICY_NAME


@dataclass(frozen=True)
class Usage:
    limit: int
    window: int
    remaining: int
    reset: int  # seconds until the oldest counted request leaves the window (then one more is allowed)
    exceeded: bool
    policy: str = POLICY_NAME
    policies: tuple[Quota, ...] = ()  # every budget the request was counted in (the header lists them)

    def headers(self) -> dict[str, str]:
        listed = self.policies or (Quota("", self.limit, self.window, self.policy),)
        return {
            "RateLimit-Policy": ", ".join(
                f'"{item.policy}";q={item.limit};w={item.window}' for item in listed
            ),
            "RateLimit": f'"{self.policy}";r={self.remaining};t={self.reset}',
        }


def client_quotas(request: HttpRequest) -> list[Quota]:
    """Who is counted, in which budgets: the function API_RATE_LIMIT_CLIENT names (the access app's, which
    knows tokens and page sessions), so this plumbing imports no domain app. A request passes only if
    every budget has room, and is then counted in all of them; none means it is not counted here. The
    function raises AuthenticationFailed for credentials it refuses (a bad or expired bearer token)."""
    return _function(settings.API_RATE_LIMIT_CLIENT)(request)


@functools.cache
def _function(dotted_path: str) -> Callable[[HttpRequest], list[Quota]]:
    return import_string(dotted_path)


def is_rate_limited_path(path: str) -> bool:
    if path in settings.RATE_LIMITED_PAGES:
        return True
    return is_api_path(path) and path not in settings.API_RATE_LIMIT_EXEMPT_PATHS


def count_request(request: HttpRequest) -> Usage | None:
    """Count this request in its client's window, reading the shared versions on the same round trip.
    None when the shared cache cannot be used (fail open)."""
    return _count(request, cost=1, read=versions.keys())


def count_more(request: HttpRequest, extra: int) -> Usage | None:
    """Count `extra` more requests for a request that carries several (an MCP batch: every message
    counts), all or none. The response's RateLimit headers then tell the count after them."""
    try:
        usage = _count(request, cost=extra, read=[])
    except AuthenticationFailed:  # the token died since the door let it in: its next request hears 401
        return None
    if usage is not None and not usage.exceeded:
        request._rate_limit_usage = usage  # type: ignore[attr-defined]  # a per-request memo, read with getattr
    return usage


def over_limit(usage: Usage) -> Problem:
    retry_after = max(1, usage.reset)
    return Problem(
        "rate_limited",
        f"More than {usage.limit} requests in {usage.window} seconds; retry in {retry_after} s.",
        headers={"Retry-After": str(retry_after)},
    )


def _count(request: HttpRequest, *, cost: int, read: list[str]) -> Usage | None:
    location = str(settings.CACHES["default"].get("LOCATION", ""))
    if time.monotonic() < _skip_until.get(location, 0):
        return None
    quotas = client_quotas(request)
    if not quotas:
        return None
    windows = [sliding_window.Window(quota.key, quota.limit, quota.window) for quota in quotas]
    try:
        counts = sliding_window.hit_all(windows, read=read, cost=cost)
    except Exception:  # the cache backend's own errors differ (redis, breaker …): none may block the API
        _skip_until[location] = time.monotonic() + SKIP_SECONDS
        logger.warning("Rate-limit counter unavailable; requests pass uncounted for %s s", SKIP_SECONDS)
        return None
    if read:
        versions.observe(counts[0].read)
    return _usage(quotas, counts, cost)


def _usage(quotas: list[Quota], counts: list[sliding_window.Count], cost: int) -> Usage:
    """The budget the headers report: refused, the full one that frees last (Retry-After waits for it);
    allowed, the one with the fewest requests left."""
    pairs = list(zip(quotas, counts, strict=True))
    if counts[0].allowed:
        quota, count = min(pairs, key=lambda pair: pair[0].limit - pair[1].count)
    else:
        full = [pair for pair in pairs if pair[1].count + cost > pair[0].limit] or pairs
        quota, count = max(full, key=lambda pair: pair[1].reset)
    return Usage(
        limit=quota.limit,
        window=quota.window,
        remaining=max(0, quota.limit - count.count),
        reset=count.reset,
        exceeded=not count.allowed,
        policy=quota.policy,
        policies=tuple(quotas),
    )


class RateLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_rate_limited_path(request.path_info):
            return self.get_response(request)
        try:
            usage = count_request(request)
        except AuthenticationFailed as refusal:  # a bad or expired token: 401 and its challenge, before
            # any work and never the 429 of the address's budget (MCP, Authorization › Token Handling)
            return early_refusal(request, classify(refusal))
        if usage is None:
            return self.get_response(request)
        response = early_refusal(request, over_limit(usage)) if usage.exceeded else self.get_response(request)
        usage = getattr(request, "_rate_limit_usage", usage)  # counted again by the view (count_more)
        for name, value in usage.headers().items():
            response[name] = value
        return response
