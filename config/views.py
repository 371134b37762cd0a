"""Project-level views: the health check, and the API's answers for unknown paths and crashes."""

import logging
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FuturesTimeout

from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.defaults import bad_request as html_bad_request
from django.views.defaults import server_error as html_server_error

from apikit.problems import Problem, response_for_path
from sitekit.methods import allow, json_refusal

logger = logging.getLogger(__name__)
HEALTH_KEY = "healthz:probe"
PROBE_SECONDS = 0.8  # both probes together: /healthz answers within 1 s whatever hangs


@csrf_exempt
def unknown_api_path(request: HttpRequest, *args, **kwargs) -> HttpResponse:
    return response_for_path(request.path_info, Problem("not_found", f"No operation at {request.path_info}."))


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler400: a request Django refuses before any view (e.g. a bad Host header) on /api/ paths."""
    if request.path_info.startswith("/api"):
        return response_for_path(
            request.path_info, Problem("invalid_request", "The request was refused as malformed.")
        )
    return html_bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: crashes outside DRF views still answer in the API's format, without internals."""
    if request.path_info.startswith("/api"):
        return response_for_path(
            request.path_info, Problem("internal_error", "The server failed to handle this request.")
        )
    return html_server_error(request)


@allow("GET", "HEAD", refusal=json_refusal)
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database and the cache both answer within PROBE_SECONDS, else 503 naming the one that
    failed or hung. The probes run side by side in threads of their own, so nothing can hold this answer."""
    deadline = time.monotonic() + PROBE_SECONDS
    running = {name: probe.start() for name, probe in PROBES.items()}
    checks = {name: _outcome(name, future, deadline) for name, future in running.items()}
    healthy = all(state == "ok" for state in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", **checks}, status=200 if healthy else 503
    )


class _Probe:
    """One dependency's check in a daemon thread (a hung one must not keep a worker from exiting); at most
    two per dependency at a time, so a hung database cannot pile up threads."""

    def __init__(self, check):
        self.check, self.slots = check, threading.BoundedSemaphore(2)

    def start(self) -> Future:
        future: Future = Future()
        if not self.slots.acquire(blocking=False):
            logger.warning("Health check %s: earlier probes are still hanging", self.check.__name__)
            future.set_result("unavailable")
            return future

        def run() -> None:
            try:
                future.set_result(_probe(self.check))
            finally:
                self.slots.release()

        threading.Thread(target=run, daemon=True, name=f"healthz-{self.check.__name__}").start()
        return future


def _outcome(name: str, future: Future, deadline: float) -> str:
    try:
        return future.result(timeout=max(0.0, deadline - time.monotonic()))
    except FuturesTimeout:
        logger.warning("Health check %s timed out after %s s", name, PROBE_SECONDS)
        return "unavailable"


def _probe(check) -> str:
    try:
        check()
    except Exception:  # any driver's failure means "down"; the log keeps the reason
        logger.warning("Health check %s failed", check.__name__, exc_info=True)
        return "unavailable"
    return "ok"


def _database_answers() -> None:
    try:
        with connection.cursor() as cursor:  # this probe thread's own connection
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()


def _cache_answers() -> None:
    cache.set(HEALTH_KEY, "1", timeout=10)
    if cache.get(HEALTH_KEY) != "1":
        raise RuntimeError("cache did not return the value just written")


PROBES = {"database": _Probe(_database_answers), "cache": _Probe(_cache_answers)}
