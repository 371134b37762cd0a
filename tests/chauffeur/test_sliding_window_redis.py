"""The rate limiter's count on Redis travels on each thread's own connection (chauffeur/api/sliding_window.py):
it survives a server that forgot the script or dropped the connection, and stays one round trip."""

import os
import threading

import pytest
import redis
from django.conf import settings

from chauffeur.api import sliding_window
from tests.roundtrips import count_redis_commands

pytestmark = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs REDIS_URL: the count's own connection is to Redis"
)


@pytest.fixture
def server() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5)


def test_each_count_is_one_round_trip_on_the_threads_own_connection(server):
    sliding_window.hit("own", limit=10, window=60)
    before = server.client_list()
    with count_redis_commands() as trips:
        counts = [sliding_window.hit("own", limit=10, window=60).count for _ in range(3)]
    assert counts == [2, 3, 4]
    assert trips == ["EVALSHA"] * 3
    assert len(server.client_list()) == len(before)  # no connection opened per count


def test_a_server_that_forgot_the_script_loads_it_again_and_counts(server):
    assert sliding_window.hit("flushed", limit=10, window=60).count == 1
    server.script_flush()
    assert sliding_window.hit("flushed", limit=10, window=60).count == 2
    assert server.script_exists(sliding_window.SCRIPT_SHA) == [True]


def test_a_dropped_connection_fails_that_count_only_and_the_next_one_reconnects(server):
    assert sliding_window.hit("dropped", limit=10, window=60).count == 1
    killed = server.client_kill_filter(_type="normal", skipme=True)
    assert killed >= 1
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
