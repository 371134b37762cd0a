"""URLs for the request-deadline tests' own gunicorn (deadline_settings.py): the project's, plus views that
hang in Python code or in C (naming the worker), views that write in a transaction and then overrun, and
one that names its worker. The writes go to a table of their own (`deadline_probe`), made on first use."""

import os
import time

from django.db import connection, transaction
from django.http import HttpRequest, JsonResponse
from django.urls import path

from config.deadline import WorkerTimeout
from config.urls import handler400, handler500  # noqa: F401 - the project's error answers
from config.urls import urlpatterns as project_urls


def spin(request: HttpRequest) -> JsonResponse:
    """Busy in Python code for `seconds`, without a database statement."""
    until = time.monotonic() + float(request.GET["seconds"])
    while time.monotonic() < until:
        pass
    return JsonResponse({"spun": True})


def block(request: HttpRequest) -> JsonResponse:
    """Blocked in C for `seconds` (like a socket read)."""
    time.sleep(float(request.GET["seconds"]))
    return JsonResponse({"pid": os.getpid(), "slept": float(request.GET["seconds"])})


def worker(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"pid": os.getpid()})


def _probe_table() -> None:
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS deadline_probe (marker varchar(80) PRIMARY KEY)")


def _insert(marker: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO deadline_probe (marker) VALUES (%s)", [marker])


def write_then_overrun(request: HttpRequest) -> JsonResponse:
    """In one transaction: a row, then busy (`how=spin`) or blocked (`how=block`) for `seconds`, then a
    second row (`then=insert`) or straight to the COMMIT (`then=commit`). Its database connection opens
    inside a `connection.execute_wrapper` block of its own, whose exit must not remove the deadline's check."""
    connection.close()
    with connection.execute_wrapper(lambda execute, *args: execute(*args)):
        _probe_table()
    marker, seconds = request.GET["marker"], float(request.GET["seconds"])
    with transaction.atomic():
        _insert(marker)
        if request.GET["how"] == "block":
            time.sleep(seconds)
        else:
            spin(request)
        if request.GET["then"] == "insert":
            _insert(f"{marker}-after")
    return JsonResponse({"written": True})


def write_inside_caught_block(request: HttpRequest) -> JsonResponse:
    """A row, then an inner atomic block (a savepoint) that writes, overruns and fails; the outer block
    catches that failure and commits what it wrote itself."""
    _probe_table()
    marker = request.GET["marker"]
    with transaction.atomic():
        _insert(f"{marker}-outer")
        try:
            with transaction.atomic():
                _insert(f"{marker}-inner")
                spin(request)
                _insert(f"{marker}-inner-after")
        except WorkerTimeout:
            pass
    return JsonResponse({"caught": True, "pid": os.getpid()})


def rows(request: HttpRequest) -> JsonResponse:
    """The probe rows whose marker starts with `marker`, and the worker that read them."""
    _probe_table()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT marker FROM deadline_probe WHERE marker LIKE %s ORDER BY marker",
            [request.GET["marker"] + "%"],
        )
        found = [marker for (marker,) in cursor.fetchall()]
    return JsonResponse({"rows": found, "pid": os.getpid()})


urlpatterns = [
    path("api/v1/deadline-test/spin", spin),
    path("api/v1/deadline-test/block", block),
    path("api/v1/deadline-test/worker", worker),
    path("api/v1/deadline-test/write", write_then_overrun),
    path("api/v1/deadline-test/write-nested", write_inside_caught_block),
    path("api/v1/deadline-test/rows", rows),
    *project_urls,
]
