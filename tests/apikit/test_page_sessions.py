"""Page sessions (docs/web/embedding.md, "page sessions"): the booking page and the embedded form carry a signed session that
is its own rate-limit client with a person's budget, under a ceiling per address; a forged or expired one
is an ordinary API client (60/60 s); one address mints only so many sessions an hour. Runs on whichever
shared cache the run has: the in-process one, and Redis in the PostgreSQL/Redis run (REDIS_URL)."""

import json
import re
import time

import pytest
import time_machine
from django.core import signing

from apikit import page_sessions
from tests.apikit.test_ratelimit import remaining_and_reset
from tests.conftest import assert_problem

pytestmark = pytest.mark.django_db

CATALOG = "/api/v1"
HOTEL, ELSEWHERE = "198.51.100.7", "203.0.113.8"


def page_session(client, path: str = "/en/", address: str = HOTEL) -> str | None:
    """The page session the page served to `address` carries (null when none was issued)."""
    response = client.get(path, REMOTE_ADDR=address)
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    config = re.search(r'<script id="cb-config" type="application/json">(.*?)</script>', response.text, re.S)
    return json.loads(config[1])["pageSession"]


def call(client, session: str | None, address: str = HOTEL, path: str = CATALOG):
    headers = {"HTTP_PAGE_SESSION": session} if session is not None else {}
    return client.get(path, REMOTE_ADDR=address, **headers)


def test_the_page_and_the_embedded_form_each_carry_their_own_session(client):
    sessions = [
        page_session(client, "/en/"),
        page_session(client, "/de/"),
        page_session(client, "/embed/form"),
    ]
    assert all(sessions) and len(set(sessions)) == 3


def test_a_valid_session_gets_a_persons_budget_then_429_with_the_page_policy(client):
    session = page_session(client)
    answers = [call(client, session) for _ in range(300)]
    assert {answer.status_code for answer in answers} == {200}
    assert answers[0]["RateLimit-Policy"] == '"page";q=300;w=600, "page-address";q=1200;w=600'
    assert remaining_and_reset_for(answers[0], "page")[0] == 299
    assert remaining_and_reset_for(answers[-1], "page")[0] == 0
    refused = call(client, session)
    assert_problem(refused, 429, "rate_limited")
    remaining, reset = remaining_and_reset_for(refused, "page")
    assert remaining == 0 and int(refused["Retry-After"]) == max(1, reset) and reset <= 600
    # The address's own API budget was not touched by the page's calls.
    anonymous = call(client, None)
    assert anonymous.status_code == 200 and remaining_and_reset(anonymous) == (59, 60)


@pytest.mark.parametrize(
    "forged",
    [
        "not-a-session",
        signing.dumps("0" * 32, salt="another-purpose"),
        signing.dumps("0" * 32, salt=page_sessions.SALT, key="another-secret-key-" + "x" * 40),
    ],
)
def test_a_forged_session_is_an_ordinary_client_with_60_a_minute(client, forged):
    answers = [call(client, forged) for _ in range(60)]
    assert {answer.status_code for answer in answers} == {200}
    assert answers[0]["RateLimit-Policy"] == '"default";q=60;w=60'
    assert_problem(call(client, forged), 429, "rate_limited")
    assert call(client, None).status_code == 429  # the same client as the address without a session


def test_an_altered_session_is_not_valid(client):
    session = page_session(client)
    altered = session[:-1] + ("A" if session[-1] != "A" else "B")
    assert call(client, altered)["RateLimit-Policy"] == '"default";q=60;w=60'


def test_an_expired_session_is_an_ordinary_client(client, settings):
    settings.PAGE_SESSION_MAX_AGE_SECONDS = 60
    # The clock stands still but for the one step past the session's age, however slow the machine.
    with time_machine.travel(time.time(), tick=False) as clock:
        session = page_session(client)
        assert call(client, session)["RateLimit-Policy"].startswith('"page"')
        clock.shift(61)
        for _ in range(60):
            assert call(client, session)["RateLimit-Policy"] == '"default";q=60;w=60'
        assert_problem(call(client, session), 429, "rate_limited")


def test_all_sessions_of_one_address_share_a_ceiling_and_a_refusal_costs_no_budget(client, settings):
    settings.PAGE_SESSION_RATE_LIMIT, settings.PAGE_ADDRESS_RATE_LIMIT = 6, 10
    first, second, third = page_session(client), page_session(client), page_session(client)
    assert [call(client, first).status_code for _ in range(7)] == [200] * 6 + [429]  # its own budget
    assert [call(client, second).status_code for _ in range(5)] == [200] * 4 + [429]  # the address's
    refused = call(client, third)
    assert_problem(refused, 429, "rate_limited")
    assert refused["RateLimit"].startswith('"page-address";r=0;')
    # Elsewhere (a traveller who left the hotel) the second session still has its own last 2: the
    # refused calls were counted nowhere, and the other address's ceiling is untouched.
    elsewhere = call(client, second, address=ELSEWHERE)
    assert elsewhere.status_code == 200
    assert remaining_and_reset_for(elsewhere, "page")[0] == 1
    assert call(client, page_session(client, address=ELSEWHERE), address=ELSEWHERE).status_code == 200


def test_one_address_mints_only_so_many_sessions_an_hour(client, settings):
    settings.PAGE_SESSIONS_PER_ADDRESS = 3
    minted = [page_session(client, path) for path in ("/en/", "/de/", "/embed/form", "/en/", "/embed/form")]
    assert all(minted[:3]) and minted[3:] == [None, None]  # the page still works: as an ordinary client
    assert page_session(client, address=ELSEWHERE)


def test_a_full_page_budget_frees_by_itself_when_its_window_moves_on(client, settings):
    settings.PAGE_SESSION_RATE_LIMIT, settings.PAGE_RATE_LIMIT_WINDOW_SECONDS = 3, 2
    session = page_session(client)
    assert [call(client, session).status_code for _ in range(4)] == [200, 200, 200, 429]
    retry_after = int(call(client, session)["Retry-After"])
    assert 1 <= retry_after <= 2
    time.sleep(retry_after + 0.2)
    assert call(client, session).status_code == 200


def test_a_bearer_token_outranks_a_page_session(client, agent):
    session = page_session(client)
    answer = client.get(CATALOG, HTTP_PAGE_SESSION=session, **agent)
    assert answer["RateLimit-Policy"] == '"default";q=60;w=60'


def remaining_and_reset_for(response, policy: str) -> tuple[int, int]:
    match = re.fullmatch(rf'"{policy}";r=(\d+);t=(\d+)', response["RateLimit"])
    assert match, response["RateLimit"]
    return int(match[1]), int(match[2])


def test_with_the_shared_cache_down_the_page_still_gets_a_session(client, cache_down):
    session = page_session(client)
    assert session and page_sessions.presented_id(session)
