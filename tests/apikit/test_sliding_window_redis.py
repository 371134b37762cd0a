"""The rate limiter's count on Redis travels on each thread's own connection (apikit/sliding_window.py):
it survives a server that forgot the script or dropped the connection, and stays one round trip."""

import os
import threading
import time

import pytest
import redis
from circuitbreaker import STATE_OPEN
from django.conf import settings
from django.core.cache import caches

from apikit import cache as cache_module
from apikit import sliding_window
from tests.roundtrips import count_redis_commands

pytestmark = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs REDIS_URL: the count's own connection is to Redis"
)


@pytest.fixture
def server() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5)


def own_connection():
    """This thread's connection of the count (made by its first hit)."""
    return sliding_window._own.held[1]


def test_each_count_is_one_round_trip_on_the_threads_own_connection(server):
    sliding_window.hit("own", limit=10, window=60)
    connection = own_connection()
    socket = connection._sock
    with count_redis_commands() as trips:
        counts = [sliding_window.hit("own", limit=10, window=60).count for _ in range(3)]
    assert counts == [2, 3, 4]
    assert trips == ["EVALSHA"] * 3
    # no connection opened per count: the same one, on the same socket
    assert own_connection() is connection and connection._sock is socket is not None


def test_a_server_that_forgot_the_script_loads_it_again_and_counts(server):
    assert sliding_window.hit("flushed", limit=10, window=60).count == 1
    server.script_flush()
    assert sliding_window.hit("flushed", limit=10, window=60).count == 2
    assert server.script_exists(sliding_window.SCRIPT_SHA) == [True]


def test_a_dropped_connection_fails_that_count_only_and_the_next_one_reconnects(server):
    assert sliding_window.hit("dropped", limit=10, window=60).count == 1
    connection = own_connection()
    connection.send_command("CLIENT", "ID")
    # only this connection: other test processes share the server
    assert server.client_kill_filter(_id=connection.read_response()) == 1
    try:
        sliding_window.hit("dropped", limit=10, window=60)
        counted = 1
    except redis.ConnectionError:  # the caller fails open; nothing was counted
        counted = 0
    assert sliding_window.hit("dropped", limit=10, window=60).count == 2 + counted


def test_threads_count_on_separate_connections_into_one_exact_log(server):
    def count_ten() -> None:
        for _ in range(10):
            sliding_window.hit("threads", limit=1000, window=60)

    threads = [threading.Thread(target=count_ten) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sliding_window.hit("threads", limit=1000, window=60).count == 41


def test_members_are_unique_within_a_process_and_differ_in_a_forked_one():
    first, second = sliding_window._member(), sliding_window._member()
    assert first != second
    assert first.split(":")[0] == second.split(":")[0]
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # a gunicorn worker, forked from its master after the first count
        os.write(write, sliding_window._member().encode())
        os._exit(0)
    os.waitpid(child, 0)
    assert os.read(read, 200).decode().split(":")[0] != first.split(":")[0]


def test_while_the_caches_breaker_skips_redis_the_count_raises_without_a_round_trip(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "apikit.cache.BreakerRedisCache",
            "LOCATION": settings.REDIS_URL,
            "OPTIONS": {"BREAK_SECONDS": 60},
        }
    }
    assert sliding_window.hit("breaker", limit=10, window=60).count == 1
    breaker, _ = cache_module._breakers[str(caches["default"]._server)]
    breaker._state, breaker._opened = STATE_OPEN, time.monotonic()  # as after a failed cache call
    try:
        with count_redis_commands() as trips, pytest.raises(redis.ConnectionError):
            sliding_window.hit("breaker", limit=10, window=60)
        assert trips == []
    finally:
        breaker.reset()
    assert sliding_window.hit("breaker", limit=10, window=60).count == 2  # nothing was counted meanwhile
