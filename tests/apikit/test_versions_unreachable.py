"""A staff edit whose shared version cannot be moved because the shared cache is down (apikit/versions.py
`announce`): the edit stands and the page answers as usual, not 500; this process forgets its copy, and a
queued job moves the version once the cache is back, so no other process keeps the old data."""

from django.core.cache import cache
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from booking import availability
from booking.models import LeadTimePolicy
from tests.admin_forms import change_form_data
from tests.queued import run_pending_jobs

URL = "/admin/booking/leadtimepolicy/1/change/"
JOB = "apikit.versions.move_shared_version"


def test_a_policy_saved_while_the_cache_is_down_stands_and_its_version_moves_once_the_cache_is_back(
    admin_client, settings, django_capture_on_commit_callbacks
):
    assert availability.lead_time_rules().minimum_lead.total_seconds() == 120 * 60  # kept by this process
    data = change_form_data(admin_client.get(URL))
    data["minimum_lead_minutes"] = "180"
    working_caches = settings.CACHES
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
        }
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(URL, data)
    assert response.status_code == 302  # not a 500 after the commit
    assert LeadTimePolicy.objects.get().minimum_lead_minutes == 180
    assert availability.lead_time_rules().minimum_lead.total_seconds() == 180 * 60  # read afresh here
    [job] = DBTaskResult.objects.filter(task_path=JOB)
    assert job.args_kwargs["args"] == [availability.POLICY.key]

    # The fixture ran it after the commit, as a worker would: the cache still down, it waits for its backoff.
    assert DBTaskResult.objects.get(pk=job.pk).status != "SUCCESSFUL"
    assert run_pending_jobs() == 0

    settings.CACHES = working_caches
    cache.set(availability.POLICY.key, 1234, timeout=None)  # the version other processes saw before
    DBTaskResult.objects.filter(pk=job.pk).update(run_after=timezone.now())  # its backoff is over
    assert run_pending_jobs() == 1
    assert DBTaskResult.objects.get(pk=job.pk).status == "SUCCESSFUL"
    assert cache.get(availability.POLICY.key) not in (None, 1234)  # moved: every process reads it again
