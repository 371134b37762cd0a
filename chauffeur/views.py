"""Project-level views: the health check, and the API's answers for unknown paths and crashes."""

import logging

from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.defaults import bad_request as html_bad_request
from django.views.defaults import server_error as html_server_error

from chauffeur.api.problems import Problem, response_for_path

logger = logging.getLogger(__name__)
HEALTH_KEY = "healthz:probe"


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


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database and the cache both answer, else 503 naming the one that failed."""
    checks = {"database": _probe(_database_answers), "cache": _probe(_cache_answers)}
    healthy = all(state == "ok" for state in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", **checks}, status=200 if healthy else 503
    )


def _probe(check) -> str:
    try:
        check()
    except Exception:  # any driver's failure means "down"; the log keeps the reason
        logger.warning("Health check %s failed", check.__name__, exc_info=True)
        return "unavailable"
    return "ok"


def _database_answers() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _cache_answers() -> None:
    cache.set(HEALTH_KEY, "1", timeout=10)
    if cache.get(HEALTH_KEY) != "1":
        raise RuntimeError("cache did not return the value just written")
