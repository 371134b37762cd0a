"""The daily budget of Google calls: Google faked at the HTTP boundary, the budget set as staff set
it, the count kept in the shared cache per Europe/Vienna day. Once it is spent no request reaches Google and
the offline provider answers in the same shape; the next Vienna day starts afresh; cache hits are free."""

import logging
import os
from datetime import UTC, datetime

import pytest
import responses
from django.utils import timezone

from places import budget
from places.models import ProviderBudget
from tests.places.test_google import AUTOCOMPLETE, AUTOCOMPLETE_ANSWER, KEY, ROUTE_ANSWER, ROUTES
from tests.roundtrips import count_redis_commands

pytestmark = pytest.mark.django_db
BUDGET_PAGE = "/admin/places/providerbudget/1/change/"


@pytest.fixture(autouse=True)
def google(settings):
    settings.GOOGLE_MAPS_API_KEY = KEY
    settings.GOOGLE_ROUTES_URL = "https://routes.test"
    settings.GOOGLE_PLACES_URL = "https://places.test/"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.post(AUTOCOMPLETE, json=AUTOCOMPLETE_ANSWER)
        mock.post(ROUTES, json=ROUTE_ANSWER)
        yield mock


def set_budget(**limits) -> None:
    """As the admin saves it: the record, then the shared version once committed."""
    ProviderBudget.objects.update(**limits)
    budget.BUDGET.bump()


def suggest(client, text: str, session: str = "session-1"):
    response = client.get("/api/v1/places", {"input": text, "sessionToken": session})
    assert response.status_code == 200, response.content
    return [item["placePrediction"]["placeId"] for item in response.json()["suggestions"]]


def distance(client, origin: str, destination: str = "Flughafen Wien") -> dict:
    response = client.get("/api/v1/distance", {"from": origin, "to": destination})
    assert response.status_code == 200, response.content
    return response.json()


def at_vienna(monkeypatch, moment: datetime) -> None:
    """Django's clock (not ours) at `moment`: what `timezone.localdate()` reads."""
    monkeypatch.setattr(timezone, "now", lambda: moment)


def google_calls(google, url: str) -> int:
    return sum(call.request.url == url for call in google.calls)


def test_the_default_budget_is_2000_calls_a_day_of_each_kind():
    (record,) = ProviderBudget.objects.all()  # seeded by the migration: staff edit it, never add one
    assert (record.daily_suggestion_calls, record.daily_route_calls) == (2000, 2000)


def test_after_n_suggestion_calls_the_next_is_answered_offline_without_asking_google(client, google):
    set_budget(daily_suggestion_calls=3)
    for number in range(3):
        assert suggest(client, "sacher", f"session-{number}") == ["ChIJ-sacher", "ChIJ-sacher-salzburg"]
    assert google_calls(google, AUTOCOMPLETE) == 3

    offline = suggest(client, "sacher", "session-4")  # a fresh session token: a billable call, refused
    assert offline and all(place_id.startswith("offline:") for place_id in offline)
    assert google_calls(google, AUTOCOMPLETE) == 3
    assert budget.used_today(budget.SUGGESTIONS) == 4
    # The offline answer is not cached under Google's key: the same question asks again (and is refused).
    suggest(client, "sacher", "session-4")
    assert google_calls(google, AUTOCOMPLETE) == 3


def test_cached_answers_cost_nothing_from_the_budget(client, google):
    set_budget(daily_suggestion_calls=1, daily_route_calls=1)
    for _ in range(3):
        assert suggest(client, "sacher") == ["ChIJ-sacher", "ChIJ-sacher-salzburg"]
        assert distance(client, "Stephansplatz")["distance"] == 19.4
    assert google_calls(google, AUTOCOMPLETE) == google_calls(google, ROUTES) == 1
    assert budget.used_today(budget.SUGGESTIONS) == budget.used_today(budget.ROUTES) == 1


def test_a_cached_answer_reads_no_budget_no_database_and_nothing_more_from_redis(
    client, google, django_assert_num_queries
):
    for _ in range(2):  # the first asks Google and loads what the process keeps; the second is warm
        distance(client, "Stephansplatz")
        suggest(client, "sacher")
    with django_assert_num_queries(0):
        distance(client, "Stephansplatz")
        suggest(client, "sacher")
    if os.environ.get("REDIS_URL"):  # the in-process cache has no round trips to count
        with count_redis_commands() as trips:
            distance(client, "Stephansplatz")
        assert trips == ["EVALSHA", "GET"], trips  # the rate limit, the cached route: no budget counter
    assert google_calls(google, ROUTES) == google_calls(google, AUTOCOMPLETE) == 1


def test_after_n_route_calls_the_offline_estimate_answers_in_the_same_shape(client, google):
    set_budget(daily_route_calls=1)
    by_google = distance(client, "Stephansplatz")
    offline = distance(client, "Hotel Sacher")  # another route: a new call, beyond the budget
    assert google_calls(google, ROUTES) == 1
    assert by_google["distance"] == 19.4
    assert offline.keys() == by_google.keys()
    assert offline["distance"] != 19.4 and 15 < offline["distance"] < 30 and offline["inZoneA"] is True
    # The legacy door answers the same way.
    legacy = client.get("/api/calculate-distance", {"from": "Hotel Sacher", "to": "Flughafen Wien"})
    assert legacy.status_code == 200 and legacy.json()["distance"] == offline["distance"]
    assert google_calls(google, ROUTES) == 1


def test_the_next_vienna_day_starts_a_new_budget(client, google, monkeypatch):
    set_budget(daily_suggestion_calls=1)
    # 22:30 UTC on 20 November is 23:30 in Vienna; 23:30 UTC is already 21 November there.
    at_vienna(monkeypatch, datetime(2026, 11, 20, 22, 30, tzinfo=UTC))
    suggest(client, "sacher", "a")
    assert suggest(client, "sacher", "b")[0].startswith("offline:")
    assert google_calls(google, AUTOCOMPLETE) == 1

    at_vienna(monkeypatch, datetime(2026, 11, 20, 23, 30, tzinfo=UTC))  # same UTC day, next Vienna day
    assert suggest(client, "sacher", "c") == ["ChIJ-sacher", "ChIJ-sacher-salzburg"]
    assert google_calls(google, AUTOCOMPLETE) == 2
    assert budget.used_today(budget.SUGGESTIONS) == 1


def test_a_spent_budget_is_logged_as_an_error_once_a_day(client, caplog):
    set_budget(daily_suggestion_calls=0, daily_route_calls=0)  # 0: never ask Google
    with caplog.at_level(logging.ERROR, logger="places.budget"):
        for number in range(3):
            suggest(client, "sacher", f"session-{number}")
            distance(client, "Hotel Sacher")
    errors = [record.getMessage() for record in caplog.records if record.levelno == logging.ERROR]
    assert len(errors) == 2, errors
    assert any("0 suggestions calls" in error for error in errors)
    assert any("0 routes calls" in error for error in errors)


def test_no_limit_when_the_budget_is_left_empty(client, google):
    set_budget(daily_suggestion_calls=None)
    for number in range(5):
        assert suggest(client, "sacher", f"session-{number}")[0] == "ChIJ-sacher"
    assert google_calls(google, AUTOCOMPLETE) == 5
    assert budget.used_today(budget.SUGGESTIONS) == 5  # still counted, for the admin page


def test_without_the_shared_cache_calls_are_sent_uncounted(client, google, cache_down):
    # The shared version cannot be read either: each request reads the budget afresh.
    ProviderBudget.objects.update(daily_suggestion_calls=0)
    assert suggest(client, "sacher")[0] == "ChIJ-sacher"
    assert google_calls(google, AUTOCOMPLETE) == 1


# --- the admin --------------------------------------------------------------------------------------


def test_staff_set_the_budget_in_the_admin_and_every_process_uses_it_at_once(
    admin_client, client, google, django_capture_on_commit_callbacks
):
    suggest(client, "sacher", "warm")  # this process now keeps the default budget
    with django_capture_on_commit_callbacks(execute=True):  # the save moves the budget's shared version
        response = admin_client.post(BUDGET_PAGE, {"daily_suggestion_calls": "1", "daily_route_calls": ""})
    assert response.status_code == 302, response.content
    assert ProviderBudget.objects.get().daily_route_calls is None
    assert suggest(client, "sacher", "next")[0].startswith("offline:")  # 2 > 1: the edit is in force
    assert google_calls(google, AUTOCOMPLETE) == 1

    page = admin_client.get(BUDGET_PAGE).content.decode()
    assert "2 (budget spent; 1 answered offline)" in page
    assert admin_client.get("/admin/places/providerbudget/add/").status_code == 403  # one record only


def test_an_impossible_budget_is_a_form_error_and_changes_nothing(admin_client):
    response = admin_client.post(BUDGET_PAGE, {"daily_suggestion_calls": "-1", "daily_route_calls": "5"})
    assert response.status_code == 200
    assert "daily_suggestion_calls" in response.context["adminform"].form.errors
    record = ProviderBudget.objects.get()
    assert (record.daily_suggestion_calls, record.daily_route_calls) == (2000, 2000)


def test_the_admin_page_is_in_german(admin_client):
    page = admin_client.get(BUDGET_PAGE, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Vorschlagsabfragen pro Tag" in page
