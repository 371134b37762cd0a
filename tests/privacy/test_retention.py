"""What is kept how long (privacy/): with a frozen clock each kind of row disappears when its period has passed
and not a day before, the admin's preview counts exactly what the run removes, staff edit the periods, and the
privacy page prints the table in both languages."""

from datetime import timedelta

import pytest
import time_machine
from axes.models import AccessLog
from django.conf import settings
from django.utils import timezone

from access.models import ApiToken
from dispatch.models import JobLink
from fleet.models import Driver
from jobqueue.models import Delivery, Job
from oauth import grants
from oauth.models import AuthorizationCode, OAuthClient, OAuthGrant, RefreshToken, SignInCode
from privacy import retention
from privacy.models import RetentionPolicy
from tests.oauth.test_assistants_page import allow
from tests.queued import run_pending_jobs
from webhooks import owners
from webhooks.models import Endpoint

pytestmark = pytest.mark.django_db
KINDS = {
    "sign_in_codes": lambda: [SignInCode.objects.all(), AuthorizationCode.objects.all()],
    "refresh_tokens": lambda: [RefreshToken.objects.all()],
    "ended_consents": lambda: [OAuthGrant.objects.exclude(traveller_email="")],
    "job_links": lambda: [JobLink.objects.all()],
    "deliveries": lambda: [Delivery.objects.all()],
    "finished_jobs": lambda: [Job.objects.filter(status="SUCCESSFUL")],
    "failed_jobs": lambda: [Job.objects.filter(status="FAILED")],
    "sign_ins": lambda: [AccessLog.objects.all()],
}


@pytest.fixture
def one_of_each(make_booking):
    """One row of every kind, each at the start of its period now (expired, delivered, finished)."""
    now = timezone.now()
    SignInCode.objects.create(email="anna@example.com", digest="d", session_key="s", expires_at=now)
    client = OAuthClient.objects.create(
        client_id="c", registration="dynamic", name="C", redirect_uris=["https://c/"]
    )
    allow(client, "anna@example.com")  # its code expired now; its refresh token in 30 days
    driver = Driver.objects.create(name="Karl Huber", phone="+436601112223")
    JobLink.objects.create(booking=make_booking(), driver=driver, key_hash="k" * 64, expires_at=now)
    Delivery.objects.create(key="booking:1:anna@example.com:Your booking")
    for state in ("SUCCESSFUL", "FAILED"):
        retention.remove_expired.enqueue()
        Job.objects.filter(status="READY").update(status=state, finished_at=now)
    AccessLog.objects.create(username="eva", ip_address="127.0.0.1", user_agent="Firefox")
    return now


def counts() -> dict[str, int]:
    return {key: sum(rows.count() for rows in found()) for key, found in KINDS.items()}


def removed_at(moment) -> dict[str, int]:
    """The preview and the run at `moment`: they must agree; the categories with something removed."""
    with time_machine.travel(moment, tick=False):
        previewed = {due.category.key: due.count for due in retention.preview()}
        removed = retention.remove()
    assert previewed == removed
    return {key: count for key, count in removed.items() if count}


def test_each_kind_goes_when_its_period_has_passed_and_not_a_day_before(one_of_each):
    start = one_of_each
    assert removed_at(start + timedelta(days=6)) == {}
    assert removed_at(start + timedelta(days=7, hours=1)) == {"sign_in_codes": 2}
    assert removed_at(start + timedelta(days=29)) == {}
    assert removed_at(start + timedelta(days=30, hours=1)) == {"job_links": 1, "finished_jobs": 1}
    assert removed_at(start + timedelta(days=59)) == {}  # the refresh token expired on day 30: 30 more
    assert removed_at(start + timedelta(days=60, hours=1)) == {"refresh_tokens": 1}
    assert removed_at(start + timedelta(days=90, hours=1)) == {
        "deliveries": 1,
        "failed_jobs": 1,
        "sign_ins": 1,
    }
    assert removed_at(start + timedelta(days=119)) == {}  # the consent ended with its refresh token, day 30
    assert removed_at(start + timedelta(days=120, hours=1)) == {"ended_consents": 1}
    assert counts() == dict.fromkeys(KINDS, 0)
    consent = OAuthGrant.objects.get()  # its assistant and scopes stay, without the address
    assert consent.scopes == ["booking.read"] and consent.client.name == "C"
    # a year on, only the job link's booking is left to anonymise (tests/privacy/test_bookings_retention.py)
    assert removed_at(start + timedelta(days=400)) == {"personal_data": 1}


def test_the_periods_are_the_policys_and_the_schedule_applies_them_through_the_queue(one_of_each):
    RetentionPolicy.objects.create(pk=1, deliveries_days=1, failed_jobs_days=1, sign_in_codes_days=365)
    assert settings.JOBS_SCHEDULES["privacy.retention.remove_expired"] == 86400
    with time_machine.travel(one_of_each + timedelta(days=2), tick=False):
        retention.remove_expired.enqueue()
        run_pending_jobs()
    left = counts()
    assert (left["deliveries"], left["failed_jobs"], left["sign_in_codes"]) == (0, 0, 2)
    assert left["finished_jobs"] == 2  # the one kept 30 days, and the run's own


def test_staff_see_what_the_next_run_removes_and_edit_the_periods_within_their_rules(
    admin_client, one_of_each
):
    add = "/admin/privacy/retentionpolicy/add/"
    with time_machine.travel(one_of_each + timedelta(days=8), tick=False):
        page = admin_client.get(add, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Was der nächste Lauf entfernt" in page
    assert "Per Mail gesendete Anmeldecodes" in page and "<td>7 Tage</td><td>2</td>" in page
    form = {field.name: field.default for field in RetentionPolicy._meta.fields if field.name != "id"}
    refused = admin_client.post(add, {**form, "failed_jobs_days": 120}, HTTP_ACCEPT_LANGUAGE="en")
    assert "At most the records of messages sent (90 days)." in refused.content.decode()
    assert not RetentionPolicy.objects.exists()
    assert admin_client.post(add, {**form, "sign_in_codes_days": 2}).status_code == 302
    assert RetentionPolicy.objects.get().sign_in_codes_days == 2


@pytest.mark.parametrize(
    ("path", "heading", "days"),
    [
        ("/en/privacy", "How long we keep what", "14 days"),
        ("/de/privacy", "Wie lange wir was aufbewahren", "14 Tage"),
    ],
)
def test_the_privacy_page_prints_the_table_in_its_language(client, path, heading, days):
    RetentionPolicy.objects.create(pk=1, sign_in_codes_days=14)
    page = client.get(path).content.decode()
    assert heading in page and f"<td>{days}</td>" in page
    assert 'id="retention"' not in client.get(path.replace("privacy", "terms")).content.decode()


def test_a_withdrawn_consent_forgets_its_traveller_after_its_period_and_one_still_running_keeps_it(db):
    client = OAuthClient.objects.create(
        client_id="c", registration="dynamic", name="C", redirect_uris=["https://c/"]
    )
    withdrawn, running = allow(client, "anna@example.com"), allow(client, "ben@example.com")
    for grant in (withdrawn, running):  # each assistant hears of its traveller's bookings
        token = ApiToken.objects.filter(grant=grant).first()
        Endpoint.objects.create(
            url="https://c/hooks", owner=owners.of_token(token), manager=owners.of_manager(token)
        )
    grants.revoke_grant(withdrawn, actor="the traveller")
    start = timezone.now()
    assert "ended_consents" not in removed_at(start + timedelta(days=89))  # codes and refresh tokens went
    # Ben's refresh token lasts 30 days: his consent ends then, and is forgotten 90 days later
    assert removed_at(start + timedelta(days=90, hours=1)) == {"ended_consents": 1}
    withdrawn.refresh_from_db()
    assert withdrawn.traveller_email == "" and withdrawn.scopes == ["booking.read"]
    token = ApiToken.objects.get(grant=withdrawn)
    assert (token.acts_for, token.name) == ("", "OAuth: C for a former traveller") and token.revoked_at
    assert ApiToken.objects.get(grant=running).acts_for == "ben@example.com"
    assert OAuthGrant.objects.get(pk=running.pk).traveller_email == "ben@example.com"
    assert list(Endpoint.objects.values_list("owner", flat=True)) == ["traveller:ben@example.com"]
    assert removed_at(start + timedelta(days=120, hours=1)) == {"ended_consents": 1}
    assert not Endpoint.objects.exists()
    assert not OAuthGrant.objects.exclude(traveller_email="").exists()
