import functools
import os
import re
import time

import hypothesis
import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from django.utils import translation

from access import tokens
from access.models import ApiToken
from apikit import versions

PROBLEM_JSON = "application/problem+json"

# Property tests check what is computed, not how fast: on a loaded CI machine one example may take far
# longer than Hypothesis's 200 ms default (speed is measured by the benchmarks).
hypothesis.settings.register_profile("suite", deadline=None)
hypothesis.settings.load_profile("suite")


# CI runs `make test` in two legs at the same time (.ci/run sets CI_LEG). The tests that start processes of
# their own (gunicorn, manage.py, the dev server, workers, nginx, Chromium, the Node and agent framework
# clients), the three fuzzers that all assert "no 5xx" and the money properties run on one leg only, once. On
# the PostgreSQL/Redis leg: the ones whose servers take the suite's DATABASE_URL or REDIS_URL, the fuzzers
# (PostgreSQL refuses more input than SQLite) and the properties (its row locks are real). The ones whose servers run on a SQLite file (or a dead address) of their
# own answer the same on either leg: they are shared out so that the two legs' one-at-a-time parts take
# about as long. Without CI_LEG every test runs. docs/development/testing.md says more.
# Hundreds of generated sequences each, in-process.
MONEY_PROPERTIES = (
    "tests/corporate/test_payments_on_account_in_the_ledger.py"
    "::test_any_payments_share_out_exactly_and_never_beyond_a_ride",
    "tests/dispatch/test_ride_charge_properties.py",
    "tests/payments/test_money_invariants.py"
    "::test_no_sequence_of_changes_payments_refunds_and_cancels_loses_or_keeps_money",
)
ONE_LEG_ONLY = {
    "sqlite": (
        "tests/oauth/test_client_metadata_tls.py",
        "tests/oauth/test_discovery_conformance.py",
        "tests/mcp_endpoint/frameworks/",
        "tests/mcp_endpoint/oauth/test_outside_tools.py",
        "tests/mcp_endpoint/oauth/test_python_sdk.py",
        "tests/mcp_endpoint/oauth/test_typescript_sdk.py",
        "tests/mcp_endpoint/test_mcp_client.py",
        "tests/mcp_endpoint/test_node_clients.py",
        "tests/openapi_clients/",
        "tests/apikit/test_public_reads_gunicorn.py",
        "tests/booking/test_back_office_browser.py",
        "tests/booking/test_notifications.py::test_the_default_sender_is_on_the_public_host_not_localhost",
        "tests/browser/",  # but for the rate limits, below
        "tests/config/test_devserver.py",
        "tests/config/test_faults.py",
        "tests/config/test_health.py::test_unavailable_when_the_database_does_not_answer",
        "tests/config/test_settings.py",
        "tests/dispatch/test_demo_data.py",
        "tests/places/test_offline.py::test_the_rating_is_never_a_500_even_without_a_database",
        "tests/test_benchmark_runner.py",
        "tests/test_kubernetes.py::test_the_probes_answer_as_kubelet_asks_them",
        "tests/test_kubernetes.py::test_without_database_and_redis_the_pod_is_unready_but_alive",
        "tests/test_kubernetes.py::test_gunicorn_in_a_read_only_pod_logs_no_error",
        "tests/test_makefile.py",
        "tests/test_readme.py",
        # collections of the suite, which need neither server: here to even the legs' workers out
        "tests/test_ci.py::test_each_leg_collects_its_own_tests_and_both_legs_together_all_of_them",
        "tests/test_ci.py::test_an_unknown_leg_is_refused",
        "tests/web/test_static_assets.py",
    ),
    "postgres": (
        "tests/browser/test_admin_pages.py",  # these two: their own SQLite, here to even the legs out
        "tests/browser/test_traveller_form.py",
        "tests/access/test_revocation_gunicorn.py",
        "tests/mcp_endpoint/oauth/test_replay_and_revocation.py",
        "tests/browser/test_rate_limits.py",  # its workers share the limit through Redis here
        "tests/config/test_deadline.py",
        "tests/apikit/test_openapi.py::test_no_operation_answers_5xx_or_breaks_its_schema",
        "tests/apikit/test_ratelimit_gunicorn.py",
        "tests/config/test_schemathesis_live.py",
        "tests/jobqueue/test_reminders_worker_process.py",
        "tests/jobqueue/test_worker_process.py",
        "tests/test_ci.py",
        "tests/test_databases.py::test_the_runs_template_and_copies_are_dropped_at_its_end",
        "tests/test_fuzz.py",
        *MONEY_PROPERTIES,  # where row locks are real
        "tests/test_proxy_nginx.py",  # two workers sharing Redis here, one without it
    ),
}


def leg_of(nodeid: str) -> str | None:
    """The one leg a test runs on in CI, or None for both; the longest matching entry decides."""
    matches = [
        (len(prefix), leg)
        for leg, prefixes in ONE_LEG_ONLY.items()
        for prefix in prefixes
        if nodeid.startswith(prefix)
    ]
    return max(matches)[1] if matches else None


# The one-leg tests above start servers, clients and browsers of their own, whose timeouts a loaded machine
# can miss: `make test` runs those one at a time (the `serial` mark), while the rest run in parallel workers.
# These join the workers: the fuzzers and the money properties (in-process), and the short commands that
# start, answer and exit, with no server to wait for (not those that migrate a database first: a starved worker
# once took more than their 120 s).
AMONG_THE_WORKERS = (
    *MONEY_PROPERTIES,
    "tests/test_databases.py::test_the_runs_template_and_copies_are_dropped_at_its_end",
    "tests/booking/test_notifications.py::test_the_default_sender_is_on_the_public_host_not_localhost",
    "tests/config/test_health.py::test_unavailable_when_the_database_does_not_answer",
    "tests/apikit/test_openapi.py::test_no_operation_answers_5xx_or_breaks_its_schema",
    "tests/config/test_settings.py",
    "tests/places/test_offline.py::test_the_rating_is_never_a_500_even_without_a_database",
    "tests/test_ci.py",
    "tests/test_fuzz.py",
)
# And these run one at a time on both legs: they count real seconds of a short window, which a worker at the
# lowest priority may not get in time. (No test may act on the whole Redis server: the serial part and the
# workers share it at the same time.)
REAL_SECONDS = (
    "tests/access/test_tokens.py::test_a_kept_token_costs_no_query_and_still_expires_on_time",
    "tests/apikit/test_page_sessions.py::test_a_full_page_budget_frees_by_itself_when_its_window_moves_on",
    "tests/apikit/test_ratelimit.py::test_no_span_of_the_window_lets_more_than_the_limit_through",
    "tests/payments/test_webhooks.py::test_without_the_shared_cache_the_success_page_still_asks_stripe_once",
    # sixty reloads inside the 5 s the success page remembers asking Stripe (a starved worker took 13 s)
    "tests/payments/test_webhooks.py::test_the_success_page_asks_stripe_at_most_once_per_few_seconds_and_is_rate_limited",
    # paying within a second behind a silent mail server (a starved worker took 1.08 s)
    "tests/jobqueue/test_queue.py::test_paying_behind_a_mail_server_that_never_answers_takes_under_a_second",
)


def runs_serially(nodeid: str) -> bool:
    """Whether `make test` runs a test one at a time, apart from the parallel workers (the `serial` mark)."""
    if nodeid.startswith(REAL_SECONDS):
        return True
    return leg_of(nodeid) is not None and not nodeid.startswith(AMONG_THE_WORKERS)


@pytest.fixture(scope="session")
def django_db_keepdb(request, django_db_modify_db_settings, django_db_blocker, django_db_use_migrations):
    """Whether pytest-django sets up the test database over what it finds and keeps it after the run: asked
    for with --reuse-db, and under `make test`, where it finds a copy of a template migrated once for all the
    run's processes (tests/databases.py; the run drops the copies)."""
    from django.db import connection

    from tests.databases import copy_into_test_database, template_folder

    reuse = request.config.getvalue("reuse_db")
    folder = template_folder()
    if reuse or folder is None or not django_db_use_migrations:
        return reuse
    with django_db_blocker.unblock():
        copy_into_test_database(folder, connection)
    return True


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "serial: runs one at a time, apart from the parallel workers (`-m serial`, `-m 'not serial'`)",
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        if runs_serially(item.nodeid):
            item.add_marker(pytest.mark.serial)
    leg = os.environ.get("CI_LEG", "")
    if not leg:
        return
    if leg not in ONE_LEG_ONLY:
        raise pytest.UsageError(f"CI_LEG must be one of {', '.join(ONE_LEG_ONLY)}, not {leg!r}")
    elsewhere = [item for item in items if leg_of(item.nodeid) not in (None, leg)]
    if elsewhere:
        config.hook.pytest_deselected(items=elsewhere)
        items[:] = [item for item in items if leg_of(item.nodeid) in (None, leg)]


@pytest.fixture(autouse=True)
def fresh_cache():
    """Rate-limit counters and the shared versions must not leak from one test into the next."""
    clear_shared_cache()
    versions.forget()
    yield
    clear_shared_cache()
    versions.forget()


@pytest.fixture(autouse=True)
def no_language_left_active():
    """A request in German activates German in this thread: the next test starts in the default again."""
    yield
    translation.deactivate()


# The seller's legal details every invoice names (operator_profile/seller.py): a fresh install lacks them and its
# invoices wait, so every test that uses the database starts with them filled in, unless it asks for the
# profile as the migrations seed it (`seeded_profile`).
SELLER_DETAILS = {
    "legal_name": "Wiener Chauffeur GmbH",
    "street_address": "Kärntner Ring 1",
    "postcode": "1010",
    "city": "Wien",
    "vat_id": "ATU12345678",
}
DATABASE_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback"}


@pytest.fixture(autouse=True)
def seller_details(request):
    if "seeded_profile" in request.fixturenames:
        return
    if not (request.node.get_closest_marker("django_db") or DATABASE_FIXTURES & set(request.fixturenames)):
        return
    request.getfixturevalue("_django_db_helper")  # the database this test uses, set up before the profile
    from operator_profile.models import PROFILE_ID, OperatorProfile
    from operator_profile.services import DEFAULT_NAME

    OperatorProfile.objects.update_or_create(
        id=PROFILE_ID, defaults=SELLER_DETAILS, create_defaults={"name": DEFAULT_NAME, **SELLER_DETAILS}
    )


@pytest.fixture
def seeded_profile(db):
    """The operator profile as a fresh install has it: its name, no legal details."""
    from operator_profile.models import PROFILE_ID, OperatorProfile

    OperatorProfile.objects.filter(id=PROFILE_ID).update(
        **{**dict.fromkeys(SELLER_DETAILS, ""), "city": "Wien"}
    )


@functools.cache
def patient_redis(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=5)


def clear_shared_cache() -> None:
    """Only this test process's keys (its key prefix: tests/settings.py), so parallel workers sharing a Redis
    database leave each other's alone; through a Redis client of its own with a patient timeout: the
    service's 50 ms timeouts and its breaker are for production, and one slow answer on a busy machine must
    not fail the next tests."""
    if settings.REDIS_URL:
        client = patient_redis(settings.REDIS_URL)
        keys = list(client.scan_iter(match=f"{settings.CACHES['default']['KEY_PREFIX']}:*", count=1000))
        if keys:
            client.unlink(*keys)
    else:
        cache.clear()


@pytest.fixture
def cache_down(settings):
    """The shared cache unreachable: a real Redis client pointed at a port nothing listens on."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
        }
    }


def bearer(*scopes: str, **changes) -> dict[str, str]:
    """The Authorization header of a freshly issued token; `changes` edit it (e.g. revoked_at=…)."""
    token, plain = tokens.issue_token(name="test client", scopes=list(scopes))
    if changes:
        ApiToken.objects.filter(pk=token.pk).update(**changes)
    return {"HTTP_AUTHORIZATION": f"Bearer {plain}"}


@pytest.fixture
def writer(db) -> dict[str, str]:
    return bearer("booking.write")


@pytest.fixture
def agent(db) -> dict[str, str]:
    return bearer("booking.read", "booking.write")


@pytest.fixture
def sandbox(settings):
    """Payments through the sandbox provider, with links on a public address."""
    settings.PAYMENT_PROVIDER = "sandbox"
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"


def assert_problem(response, status: int, code: str, field: str | None = None) -> dict:
    """A v1 error: problem+json with the RFC 9457 members, the stable code, and the field at fault."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_JSON
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"urn:chauffeur:problem:{code}"
    assert body["title"] and body["detail"] and body["hint"]
    if field is not None:
        assert field in body["errors"], body
        assert field in body["detail"], body
    return body


def start_of_window(client, **extra) -> None:
    """Let the next requests fall into one rate-limit window: wait out a window that is about to end."""
    reset = int(re.search(r";t=(\d+)$", client.get("/api/v1", **extra)["RateLimit"])[1])
    if reset < 5:
        time.sleep(reset + 1)
    clear_shared_cache()


@pytest.fixture
def django_capture_on_commit_callbacks(django_capture_on_commit_callbacks):
    """pytest-django's fixture, and with `execute=True` what the worker does after the commit: the jobs the
    transaction enqueued run too (tests/queued.py)."""
    from contextlib import contextmanager

    from tests.queued import run_pending_jobs, waiting_job_ids

    @contextmanager
    def capture(*, using="default", execute=False):
        earlier = waiting_job_ids()  # enqueued before the block: as uncommitted as its callbacks were
        with django_capture_on_commit_callbacks(using=using, execute=execute) as callbacks:
            yield callbacks
        if execute:
            run_pending_jobs(leave=earlier)

    return capture


@pytest.fixture
def jobs_after_commit():
    """Tests on real transactions: the jobs a commit enqueued run right after it, as a worker would."""
    from tests.queued import worker_after_each_commit

    with worker_after_each_commit():
        yield
