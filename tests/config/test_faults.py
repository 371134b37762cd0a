"""Dependencies that hang or die (docs/operations/failure.md): a Redis of the test's own, stopped with SIGSTOP
and then killed; a "database" that accepts connections and never answers, behind a real gunicorn; a fake
Stripe that answers slower than the client waits. Each asserts the answer, its time bound, and the
bookings. The bounds are generous (CI has 2 cores); that page gives the times measured."""

import json
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from django.core import mail
from django.core.cache import cache

from apikit.cache import CircuitBreakerError
from apikit.problems import DATABASE_DOWN
from booking.models import Booking, BookingStatus
from tests.booking.test_checkout import ride, server_amount
from tests.conftest import assert_problem
from tests.processes import free_port, gunicorn

PRICE = "/api/v1/price?vehicleClass=executive&distanceKm=20"


def timed(call):
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


# --- Redis: stopped, then killed -------------------------------------------------------------------------


@pytest.fixture
def own_redis(settings) -> Iterator[subprocess.Popen]:
    """A redis-server of this test's own on a free port, as the shared cache; never the suite's Redis."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed: the Redis fault test needs a server of its own")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        settings.CACHES = {
            "default": {
                "BACKEND": "apikit.cache.BreakerRedisCache",
                "LOCATION": f"redis://127.0.0.1:{port}/0",
                "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.05, "SOCKET_TIMEOUT": 0.05, "BREAK_SECONDS": 1},
            }
        }
        yield process
    finally:
        process.send_signal(signal.SIGCONT)  # a stopped process cannot act on SIGKILL's cleanup otherwise
        process.kill()
        process.wait(timeout=10)


def assert_serves_without_the_cache(client, writer) -> None:
    health, took = timed(lambda: client.get("/healthz"))
    assert health.status_code == 503
    assert health.json() == {"status": "unavailable", "database": "ok", "cache": "unavailable"}
    assert took < 1.0, took
    with pytest.raises(CircuitBreakerError):  # the breaker is open: no socket timeout, no Redis call
        cache.get("anything")

    price, took = timed(lambda: client.get(PRICE))
    assert price.status_code == 200, price.content
    assert price.json()["priceEur"] > 0
    assert took < 2.0, took

    # A checkout still books exactly once, with its price read from the database.
    before = Booking.objects.count()
    data = ride()
    body = {"amount": server_amount(client, data), "bookingData": data}
    booked = client.post("/api/v1/checkout", body, content_type="application/json", **writer)
    assert booked.status_code == 201, booked.content
    assert Booking.objects.count() == before + 1
    assert Booking.objects.get(reference=booked.json()["reference"]).status == BookingStatus.PENDING_PAYMENT


@pytest.mark.django_db
@pytest.mark.usefixtures("sandbox")
def test_a_stopped_then_killed_redis_costs_one_short_timeout_and_nothing_else(client, writer, own_redis):
    assert client.get("/healthz").status_code == 200
    assert client.get(PRICE).status_code == 200

    own_redis.send_signal(signal.SIGSTOP)  # accepts connections (the kernel does), never answers
    try:
        assert_serves_without_the_cache(client, writer)
        # Twelve price requests, the reproduction (16 s before): the breaker keeps them fast.
        answers, took = timed(lambda: [client.get(PRICE).status_code for _ in range(12)])
        assert answers == [200] * 12
        assert took < 3.0, took
    finally:
        own_redis.send_signal(signal.SIGCONT)

    time.sleep(1.1)  # BREAK_SECONDS: the next call tries Redis again, and it answers
    assert client.get("/healthz").status_code == 200
    assert cache.get("healthz:probe") == "1"

    own_redis.kill()
    own_redis.wait(timeout=10)
    assert_serves_without_the_cache(client, writer)
    assert len(mail.outbox) == 0  # nothing was paid, so nothing was confirmed


# --- PostgreSQL: accepts connections, never answers ------------------------------------------------------


@contextmanager
def silent_listener() -> Iterator[tuple[int, list[socket.socket]]]:
    """A TCP port that accepts every connection and never sends a byte: a database that hangs."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:  # closed at the end of the test
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield server.getsockname()[1], held
    finally:
        server.close()
        for connection in held:
            connection.close()


def production_env(database_url: str) -> dict[str, str]:
    return {
        "DJANGO_SECRET_KEY": "faults-test-secret-key-" + "x" * 40,
        "DATABASE_URL": database_url,
        # Checkout needs the tariffs before it would call the provider, so Stripe is never reached here.
        "PAYMENT_PROVIDER": "stripe",
        "STRIPE_SECRET_KEY": "sk_test_faults",
        "STRIPE_API_BASE": "http://127.0.0.1:9",
    }


def assert_every_surface_answers_in_its_format(base: str, bound: float, *, database_down: bool) -> None:
    """A database error is a dependency's outage (503 upstream_unavailable; the legacy contract's 500);
    a request the worker timeout ends is an internal error."""
    health, took = timed(lambda: requests.get(f"{base}/healthz", timeout=10))
    assert health.status_code == 503
    assert health.json() == {"status": "unavailable", "database": "unavailable", "cache": "ok"}
    assert took < 1.5, took

    price, took = timed(lambda: requests.get(f"{base}{PRICE}", timeout=40))
    code, status = ("upstream_unavailable", 503) if database_down else ("internal_error", 500)
    assert price.status_code == status and took < bound, (took, price.text)
    assert price.headers["Content-Type"] == "application/problem+json"
    assert price.json()["code"] == code

    legacy, took = timed(
        lambda: requests.post(
            f"{base}/api/create-checkout-session", json={"amount": 7400, "bookingData": ride()}, timeout=40
        )
    )
    assert legacy.status_code == 500 and took < bound, (took, legacy.text)
    detail = DATABASE_DOWN if database_down else "The server failed to handle this request."
    assert legacy.json() == {"error": detail}

    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Authorization": "Bearer cbt_" + "x" * 43, "Accept": "application/json, text/event-stream"}
    mcp, took = timed(lambda: requests.post(f"{base}/api/mcp", json=ping, headers=headers, timeout=40))
    assert took < bound, (took, mcp.text)
    assert mcp.headers["Content-Type"].startswith("application/json"), mcp.text
    answer = json.loads(mcp.text)
    assert answer["jsonrpc"] == "2.0" and answer["error"]["code"] == -32603, answer  # internal error


def test_a_database_that_never_answers_fails_requests_in_their_format_within_seconds(tmp_path):
    with (
        silent_listener() as (port, held),
        gunicorn(tmp_path, production_env(f"postgres://u@127.0.0.1:{port}/d"), any_answer=True) as (base, _),
    ):
        # connect_timeout (3 s) ends each attempt: well inside gunicorn's 30 s, never its HTML page.
        assert_every_surface_answers_in_its_format(base, bound=10, database_down=True)
        assert held, "the service never tried the database"


def test_a_request_outliving_the_worker_timeout_still_answers_in_its_format(tmp_path):
    # A hang no client timeout ends (here a connect timeout longer than gunicorn's, so no statement is ever
    # reached): the request deadline answers for each request and recycles its worker. A short --timeout
    # keeps the test quick; each answer may wait for a fresh worker's boot, so the bound is the sync one's.
    url_without_timeout = "postgres://u@127.0.0.1:{port}/d?connect_timeout=60"
    with (
        silent_listener() as (port, _),
        gunicorn(
            tmp_path, production_env(url_without_timeout.format(port=port)), "--timeout", "2", any_answer=True
        ) as (base, _),
    ):
        assert_every_surface_answers_in_its_format(base, bound=20, database_down=False)


# --- Stripe: slower than the client waits ----------------------------------------------------------------


@pytest.fixture
def hanging_stripe(settings) -> Iterator[list[str]]:
    """A fake Stripe whose every answer takes longer than the client's read timeout (10 s)."""
    release = threading.Event()
    calls: list[str] = []

    class Slow(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            calls.append(self.path)
            release.wait(timeout=20)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.PAYMENT_PROVIDER = "stripe"
    settings.STRIPE_SECRET_KEY = "sk_test_faults"
    settings.STRIPE_API_BASE = f"http://127.0.0.1:{server.server_address[1]}"
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"
    try:
        yield calls
    finally:
        release.set()
        server.shutdown()
        server.server_close()


@pytest.mark.django_db
def test_a_hanging_stripe_answers_provider_unavailable_and_keeps_one_unpaid_booking(
    client, writer, hanging_stripe
):
    data = ride()
    body = {"amount": server_amount(client, data), "bookingData": data}
    response, took = timed(
        lambda: client.post("/api/v1/checkout", body, content_type="application/json", **writer)
    )
    assert_problem(response, 502, "payment_provider_unavailable")
    assert took < 20, took  # the Stripe client's 10 s read timeout, not gunicorn's 30 s
    assert hanging_stripe == ["/v1/checkout/sessions"]  # asked once, never retried
    booking = Booking.objects.get()  # kept, and only one
    assert booking.status == BookingStatus.PENDING_PAYMENT
    assert len(mail.outbox) == 0  # no confirmation for money never taken
