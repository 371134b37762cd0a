import re
import time

import pytest

from tests.conftest import assert_problem, start_of_window

pytestmark = pytest.mark.django_db

CATALOG = "/api/v1"
RATE = re.compile(r'^"default";r=(\d+);t=(\d+)$')


def remaining_and_reset(response) -> tuple[int, int]:
    match = RATE.match(response["RateLimit"])
    assert match, response["RateLimit"]
    return int(match[1]), int(match[2])


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("get", "/api/v1", 200),
        ("get", "/api/v1/price?vehicleClass=executive&distanceKm=3", 200),
        ("get", "/api/v1/price", 400),
        ("get", "/api/v1/nope", 404),
        ("post", "/api/v1/price", 405),
        ("get", "/api/legacy-nope", 404),
        ("get", "/api/docs", 200),
    ],
)
def test_every_api_response_carries_the_rate_limit_headers(client, method, path, status):
    response = getattr(client, method)(path)
    assert response.status_code == status
    assert response["RateLimit-Policy"] == '"default";q=60;w=60'
    remaining, reset = remaining_and_reset(response)
    assert remaining == 59
    assert 0 <= reset <= 60


@pytest.mark.parametrize(
    "path", ["/healthz", "/admin/login/", "/openapi.json", "/api/payments/stripe/webhook"]
)
def test_paths_outside_the_limit_carry_no_headers(client, path):
    response = client.get(path)
    assert "RateLimit" not in response
    assert "RateLimit-Policy" not in response


def test_the_61st_request_in_a_window_is_refused(client):
    start_of_window(client)
    for expected_remaining in range(59, -1, -1):
        response = client.get(CATALOG)
        assert response.status_code == 200
        assert remaining_and_reset(response)[0] == expected_remaining
    refused = client.get(CATALOG)
    body = assert_problem(refused, 429, "rate_limited")
    remaining, reset = remaining_and_reset(refused)
    assert remaining == 0
    assert int(refused["Retry-After"]) == max(1, reset)
    assert "Retry-After" in body["hint"]


def test_legacy_paths_are_refused_in_their_own_format(client):
    start_of_window(client)
    for _ in range(60):
        client.get("/api/legacy-nope")
    refused = client.get("/api/legacy-nope")
    assert refused.status_code == 429
    assert refused["Content-Type"] == "application/json"
    assert refused.json()["error"].startswith("More than 60 requests in 60 seconds")
    assert int(refused["Retry-After"]) >= 1


def test_each_client_has_its_own_budget(client):
    start_of_window(client, REMOTE_ADDR="198.51.100.1")
    for _ in range(61):
        client.get(CATALOG, REMOTE_ADDR="198.51.100.1")
    assert client.get(CATALOG, REMOTE_ADDR="198.51.100.1").status_code == 429
    other = client.get(CATALOG, REMOTE_ADDR="198.51.100.2")
    assert other.status_code == 200
    assert remaining_and_reset(other)[0] == 59


def test_forwarded_for_is_ignored_without_trusted_proxies(client):
    start_of_window(client)
    for index in range(61):
        response = client.get(CATALOG, HTTP_X_FORWARDED_FOR=f"203.0.113.{index}")
    assert response.status_code == 429  # one client (REMOTE_ADDR), however it names itself
    assert_problem(response, 429, "rate_limited")
    assert remaining_and_reset(response)[0] == 0


def test_with_one_trusted_proxy_the_client_is_the_address_it_saw(client, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    start_of_window(client, HTTP_X_FORWARDED_FOR="203.0.113.9")
    for _ in range(60):
        client.get(CATALOG, HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.9")
    assert client.get(CATALOG, HTTP_X_FORWARDED_FOR="203.0.113.9").status_code == 429
    # A spoofed first hop does not give a fresh budget: only the proxy's own entry counts.
    assert client.get(CATALOG, HTTP_X_FORWARDED_FOR="9.9.9.9, 203.0.113.9").status_code == 429
    assert client.get(CATALOG, HTTP_X_FORWARDED_FOR="203.0.113.10").status_code == 200


def test_the_limit_fails_open_when_the_cache_is_down(client, cache_down):
    response = client.get(CATALOG)
    assert response.status_code == 200
    assert "RateLimit" not in response


def test_no_span_of_the_window_lets_more_than_the_limit_through(client, settings):
    # A short window keeps the test quick: 5 requests in any 2 seconds. A fixed window would let a second
    # burst through as soon as a window boundary passed; the sliding one counts the last 2 s, always.
    settings.API_RATE_LIMIT_REQUESTS, settings.API_RATE_LIMIT_WINDOW_SECONDS = 5, 2
    first = [client.get(CATALOG).status_code for _ in range(5)]
    time.sleep(1.2)  # in a 2 s fixed window this crosses a boundary 60 % of the time
    second = [client.get(CATALOG) for _ in range(5)]
    assert first == [200] * 5
    assert [response.status_code for response in second] == [429] * 5
    assert remaining_and_reset(second[-1]) == (0, 1)  # the first burst leaves the window within a second
    time.sleep(1.0)  # now 2.2 s after the first burst: all of it has left the window
    again = client.get(CATALOG)
    assert again.status_code == 200 and remaining_and_reset(again)[0] == 4


def test_a_fresh_window_never_reports_more_than_its_length(client, monkeypatch):
    # On this monotonic clock reading, `oldest + 60 - now` rounds to a hair over 60 s and read as 61
    # (seen in CI); the reset is the window minus the oldest hit's age.
    monkeypatch.setattr(time, "monotonic", lambda: 262110.042)
    response = client.get(CATALOG)
    assert remaining_and_reset(response) == (59, 60)
