"""The rate limit of docs/decisions.md §7 on every /api/ path, counted with django-ratelimit in the
shared cache, answered with the IETF RateLimit header fields on every response and 429 + Retry-After
beyond the limit."""

import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from django_ratelimit.core import get_usage

from chauffeur.api.problems import Problem, response_for_path

logger = logging.getLogger(__name__)

RATE_GROUP = "api"
POLICY_NAME = "default"


@dataclass(frozen=True)
class Usage:
    limit: int
    window: int
    remaining: int
    reset: int  # seconds until the window resets
    exceeded: bool

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Policy": f'"{POLICY_NAME}";q={self.limit};w={self.window}',
            "RateLimit": f'"{POLICY_NAME}";r={self.remaining};t={self.reset}',
        }


def client_and_limit(request: HttpRequest) -> tuple[str, int]:
    """Who is counted, and their quota: the function API_RATE_LIMIT_CLIENT names (the access app's, which
    knows tokens), so this plumbing imports no domain app."""
    return import_string(settings.API_RATE_LIMIT_CLIENT)(request)


def is_rate_limited_path(path: str) -> bool:
    if path in settings.RATE_LIMITED_PAGES:
        return True
    return (path == "/api" or path.startswith("/api/")) and path not in settings.API_RATE_LIMIT_EXEMPT_PATHS


def count_request(request: HttpRequest) -> Usage | None:
    """Count this request against its client's window. None when the cache cannot be reached (fail open)."""
    window = settings.API_RATE_LIMIT_WINDOW_SECONDS
    key, limit = client_and_limit(request)
    try:
        usage = get_usage(
            request, group=RATE_GROUP, key=lambda group, req: key, rate=f"{limit}/{window}s", increment=True
        )
    except Exception:  # the cache backend's own errors differ (redis, memcached …): none may block the API
        logger.warning("Rate-limit counter unavailable; request let through", exc_info=True)
        return None
    if usage is None:  # RATELIMIT_FAIL_OPEN: the counter could not be read or written
        return None
    return Usage(
        limit=limit,
        window=window,
        remaining=max(0, limit - usage["count"]),
        reset=max(0, usage["time_left"]),
        exceeded=usage["should_limit"],
    )


class RateLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_rate_limited_path(request.path_info):
            return self.get_response(request)
        usage = count_request(request)
        if usage is None:
            return self.get_response(request)
        if usage.exceeded:
            retry_after = max(1, usage.reset)
            response = response_for_path(
                request.path_info,
                Problem(
                    "rate_limited",
                    f"More than {usage.limit} requests in {usage.window} seconds; retry in {retry_after} s.",
                    headers={"Retry-After": str(retry_after)},
                ),
            )
        else:
            response = self.get_response(request)
        for name, value in usage.headers().items():
            response[name] = value
        return response
