"""URLs for the request-deadline tests' own gunicorn (deadline_settings.py): the project's, plus views that
hang in Python code or in C (naming the worker), and one that names its worker."""

import os
import time

from django.http import HttpRequest, JsonResponse
from django.urls import path

from chauffeur.urls import handler400, handler500  # noqa: F401 - the project's error answers
from chauffeur.urls import urlpatterns as project_urls


def spin(request: HttpRequest) -> JsonResponse:
    """Busy in Python code for `seconds`: an exception raised into the thread arrives at once."""
    until = time.monotonic() + float(request.GET["seconds"])
    while time.monotonic() < until:
        pass
    return JsonResponse({"spun": True})


def block(request: HttpRequest) -> JsonResponse:
    """Blocked in C for `seconds` (like a socket read): an exception raised into the thread waits."""
    time.sleep(float(request.GET["seconds"]))
    return JsonResponse({"pid": os.getpid(), "slept": float(request.GET["seconds"])})


def worker(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"pid": os.getpid()})


urlpatterns = [
    path("api/v1/deadline-test/spin", spin),
    path("api/v1/deadline-test/block", block),
    path("api/v1/deadline-test/worker", worker),
    *project_urls,
]
