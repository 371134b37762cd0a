from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from booking import availability
from booking.models import LeadTimePolicy
from mcp_endpoint import tools
from tests.admin_forms import change_form_data
from tests.conftest import assert_problem

pytestmark = pytest.mark.django_db

AVAILABILITY = "/api/v1/availability"


def test_available_pickup(client):
    response = client.get(
        AVAILABILITY,
        {"pickupDatetime": "2026-11-22T10:00:00+01:00", "bookingDatetime": "2026-11-21T14:30:00+01:00"},
    )
    assert response.status_code == 200
    assert response.json() == {
        "available": True,
        "pickupDatetime": "2026-11-22T10:00:00+01:00",
        "bookingDatetime": "2026-11-21T14:30:00+01:00",
        "earliestPickup": "2026-11-21T16:30:00+01:00",
        "reason": None,
    }


def test_night_booking_answers_with_the_rule_and_the_earliest_pickup(client):
    body = client.get(
        AVAILABILITY, {"pickupDatetime": "2026-11-22T07:00", "bookingDatetime": "2026-11-21T23:10"}
    ).json()
    assert body == {
        "available": False,
        "pickupDatetime": "2026-11-22T07:00:00+01:00",  # no offset given: Vienna local time
        "bookingDatetime": "2026-11-21T23:10:00+01:00",
        "earliestPickup": "2026-11-22T09:00:00+01:00",
        "reason": "night_rule",
    }


def test_utc_input_is_answered_in_vienna_time(client):
    body = client.get(
        AVAILABILITY, {"pickupDatetime": "2026-07-01T08:00:00Z", "bookingDatetime": "2026-06-30T08:00Z"}
    ).json()
    assert body["pickupDatetime"] == "2026-07-01T10:00:00+02:00"
    assert body["available"] is True


def test_booking_time_defaults_to_now(client):
    pickup = timezone.localtime() + timedelta(days=2)
    body = client.get(AVAILABILITY, {"pickupDatetime": pickup.isoformat()}).json()
    assert abs(datetime.fromisoformat(body["bookingDatetime"]) - timezone.now()) < timedelta(seconds=5)
    assert body["available"] is True


def test_an_offset_whose_plus_was_not_url_encoded_still_reads(client):
    response = client.get(
        "/api/v1/availability?pickupDatetime=2026-11-22T10:00:00+02:00&bookingDatetime=2026-11-21T10:00"
    )
    assert response.status_code == 200
    assert response.json()["pickupDatetime"] == "2026-11-22T09:00:00+01:00"


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({}, "pickupDatetime", "required"),
        ({"pickupDatetime": ""}, "pickupDatetime", "ISO 8601"),
        ({"pickupDatetime": "tomorrow"}, "pickupDatetime", "ISO 8601"),
        ({"pickupDatetime": "2026-11-22"}, "pickupDatetime", "ISO 8601"),
        ({"pickupDatetime": "2026-13-01T10:00"}, "pickupDatetime", "ISO 8601"),
        ({"pickupDatetime": "1900-01-01T10:00"}, "pickupDatetime", "between the years"),
        ({"pickupDatetime": "2026-03-29T02:30"}, "pickupDatetime", "does not exist"),
        ({"pickupDatetime": "2026-10-25T02:30"}, "pickupDatetime", "happens twice"),
        ({"pickupDatetime": "2026-11-22T10:00", "bookingDatetime": "now"}, "bookingDatetime", "ISO 8601"),
        (
            {"pickupDatetime": "2026-11-22T10:00", "bookingDatetime": "2026-03-29T02:00"},
            "bookingDatetime",
            "does not exist",
        ),
    ],
)
def test_every_invalid_parameter_is_named_in_a_problem(client, params, field, message):
    body = assert_problem(client.get(AVAILABILITY, params), 400, "invalid_request", field)
    assert message in body["errors"][field][0]


def test_an_offset_resolves_the_daylight_saving_ambiguity(client):
    for offset in ("+02:00", "+01:00"):
        response = client.get(AVAILABILITY, {"pickupDatetime": f"2026-10-25T02:30{offset}"})
        assert response.status_code == 200
        assert response.json()["pickupDatetime"] == f"2026-10-25T02:30:00{offset}"


def test_staff_change_the_lead_time_in_the_admin(
    admin_client, client, django_capture_on_commit_callbacks, django_assert_num_queries
):
    params = {"pickupDatetime": "2026-11-21T17:00", "bookingDatetime": "2026-11-21T14:30"}
    assert client.get(AVAILABILITY, params).json()["available"] is True
    with django_assert_num_queries(0):  # the policy is kept: a warm request reads no database
        assert client.get(AVAILABILITY, params).json()["available"] is True
    url = "/admin/booking/leadtimepolicy/1/change/"
    data = change_form_data(admin_client.get(url))
    data["minimum_lead_minutes"] = "180"
    with django_capture_on_commit_callbacks(execute=True):  # the save moves the shared policy version
        assert admin_client.post(url, data).status_code == 302
    body = client.get(AVAILABILITY, params).json()
    assert (body["available"], body["reason"], body["earliestPickup"]) == (
        False,
        "lead_time",
        "2026-11-21T17:30:00+01:00",
    )


def test_the_policy_is_a_single_record(admin_client):
    assert LeadTimePolicy.objects.count() == 1
    assert admin_client.get("/admin/booking/leadtimepolicy/add/").status_code == 403
    assert admin_client.post("/admin/booking/leadtimepolicy/1/delete/", {"post": "yes"}).status_code == 403


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("minimum_lead_minutes", "10081", "less than or equal to 10080"),
        ("max_days_ahead", "3651", "less than or equal to 3650"),
        ("minimum_lead_minutes", "-1", "greater than or equal to 0"),
    ],
)
def test_an_out_of_range_policy_cannot_be_saved(admin_client, client, field, value, message):
    url = "/admin/booking/leadtimepolicy/1/change/"
    data = change_form_data(admin_client.get(url))
    data[field] = value
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert LeadTimePolicy.objects.get().minimum_lead_minutes == 120
    assert LeadTimePolicy.objects.get().max_days_ahead == 365


def test_descriptions_of_the_lead_time_follow_the_policy_staff_set(client):
    tool = tools.find("booking.check_availability")
    assert "At least 2 hours" in str(tool.listing()["description"])
    LeadTimePolicy.objects.filter(pk=1).update(minimum_lead_minutes=90, night_start="23:00")
    availability.POLICY.announce()  # what the admin does once an edit commits
    listed = client.get("/api/mcp").json()["tools"]
    description = next(tool["description"] for tool in listed if tool["name"] == "booking.check_availability")
    assert "At least 90 minutes" in description and "between 23:00 and 06:00" in description
    # The OpenAPI document is also built where no database answers (manage.py check): it gives the defaults.
    operation = client.get("/openapi.json").json()["paths"]["/api/v1/availability"]["get"]
    assert "At least 2 hours" in operation["description"] and "defaults" in operation["description"]
