"""Requests too large for the service, refused in their surface's format before any view reads them: a
request target (path and query) longer than MAX_TARGET_BYTES is 414 everywhere; an API body declared
larger than Django reads (DATA_UPLOAD_MAX_MEMORY_SIZE) is 413. gunicorn reads request lines up to 8190
bytes (config/gunicorn.conf.py), above this limit, so these answers come from here and not from its HTML
page; a longer line still is answered by the worker itself, in JSON (config/deadline.py)."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import translation
from django.utils.html import format_html
from django.utils.translation import gettext as _

from apikit.problems import Problem, is_api_path, response_for_path

MAX_TARGET_BYTES = 4094  # what gunicorn read by default; the OpenAPI document states it


def too_long() -> Problem:
    return Problem(
        "uri_too_long",
        f"The request's path and query are longer than {MAX_TARGET_BYTES} bytes.",
    )


def too_large() -> Problem:
    return Problem(
        "request_too_large",
        f"The request's body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes.",
    )


class RequestLimitsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        path = request.path_info
        if len(_target(request)) > MAX_TARGET_BYTES:
            if is_api_path(path):
                return response_for_path(path, too_long())
            with translation.override(translation.get_language_from_request(request)):
                return short_page(414, _("This address is too long to open."))
        if is_api_path(path) and _declared_length(request) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            response = response_for_path(path, too_large())
            response["Connection"] = "close"  # the body is not read: the connection cannot carry another
            return response
        return self.get_response(request)


def _target(request: HttpRequest) -> bytes:
    """The request target as the client sent it (gunicorn's RAW_URI), else rebuilt from its parts."""
    raw = request.META.get("RAW_URI")
    return raw.encode("latin-1", "replace") if raw else request.get_full_path().encode()


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def short_page(status: int, sentence: str) -> HttpResponse:
    """A refusal on a page's address: one sentence, in the active language."""
    return HttpResponse(
        format_html(
            '<!doctype html><html lang="{}"><title>{}</title><p>{}</p></html>',
            translation.get_language(),
            status,
            sentence,
        ),
        status=status,
        content_type="text/html; charset=utf-8",
    )
