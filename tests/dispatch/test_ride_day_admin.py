"""The ride's day on the staff booking page (dispatch/admin/bookings.py): the chauffeur's steps with time and
who (undone ones marked), "Undo last ride step", "Revoke job link"; and "Mark as completed" only once the
pickup time has come, from the page and from the list. Each refusal says why and changes nothing."""

import re
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from booking.models import Booking, BookingStatus, RideState
from dispatch import job_links, ride_day
from tests.dispatch.conftest import assign

pytestmark = pytest.mark.django_db
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}


def page_of(booking) -> str:
    return f"/admin/booking/booking/{booking.pk}/change/"


def act(booking, action: str) -> str:
    return f"/admin/booking/booking/{booking.pk}/do/{action}/"


def said(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def snapshot(booking):
    booking.refresh_from_db()
    return (
        booking.status,
        list(booking.ride_steps.values_list("state", "undone_at", "undone_by")),
        booking.history.count(),
        list(booking.job_links.values_list("revoked_at", flat=True)),
    )


@pytest.fixture
def assigned(fleet, ride):
    booking = ride(pickup=(timezone.now() + timedelta(hours=1)).replace(microsecond=0))
    assign(booking, fleet["karl"], fleet["sedan"])
    booking.refresh_from_db()
    return booking


def move(booking, driver, *states):
    for state in states:
        ride_day.advance(booking.pk, state, driver=driver, actor=f"{driver.name} (chauffeur)")


def test_the_page_shows_the_steps_with_time_and_who_and_marks_the_undone(admin_client, fleet, assigned):
    move(assigned, fleet["karl"], RideState.ACCEPTED, RideState.ON_THE_WAY)
    ride_day.undo_last(assigned.pk, actor="eva (staff)")
    page = admin_client.get(page_of(assigned), **ENGLISH).content.decode()
    steps = page[page.index('id="ride-steps"') : page.index("</table>", page.index('id="ride-steps"'))]
    assert 'Ride state: <strong id="ride-state">accepted</strong>' in steps
    rows = re.findall(r'<tr class="(done|undone)">(.*?)</tr>', steps)
    assert [kind for kind, _row in rows] == ["done", "undone"]
    assert "accepted" in rows[0][1] and "Karl Huber (chauffeur)" in rows[0][1]
    assert "<s>on the way</s>" in rows[1][1] and "by eva (staff)" in rows[1][1]
    assert 'id="undo-ride-step"' in page and 'id="revoke-job-link"' in page
    assert "sent to Karl Huber" in page


def test_staff_undo_the_last_step_and_a_completed_ride_is_confirmed_again(admin_client, fleet, assigned):
    move(assigned, fleet["karl"], *[RideState.ACCEPTED, RideState.ON_THE_WAY, RideState.ARRIVED])
    with time_machine.travel(assigned.pickup_at, tick=False):  # "completed" not before the pickup
        move(assigned, fleet["karl"], RideState.ON_BOARD, RideState.COMPLETED)
    assigned.refresh_from_db()
    assert assigned.status == BookingStatus.COMPLETED
    response = admin_client.post(act(assigned, "undo-ride-step"), follow=True, **ENGLISH)
    assert said(response) == [f"{assigned.reference}: the ride step “completed” is undone."]
    assigned.refresh_from_db()
    assert assigned.status == BookingStatus.CONFIRMED
    last = assigned.ride_steps.order_by("at", "pk").last()
    assert last.state == RideState.COMPLETED and last.undone_by == "admin (staff)" and last.undone_at


def test_undo_without_a_step_is_refused_and_changes_nothing(admin_client, assigned):
    before = snapshot(assigned)
    assert 'id="undo-ride-step"' not in admin_client.get(page_of(assigned)).content.decode()
    response = admin_client.post(act(assigned, "undo-ride-step"), follow=True, **ENGLISH)
    assert said(response) == [f"{assigned.reference}: {assigned.reference} has no ride step to undo."]
    assert snapshot(assigned) == before


def test_staff_revoke_the_job_link_and_it_opens_nothing(admin_client, client, fleet, assigned):
    _link, key = job_links.issue(assigned, fleet["karl"])
    assert client.get(f"/chauffeur/job/{key}/").status_code == 200
    response = admin_client.post(act(assigned, "revoke-job-link"), follow=True, **ENGLISH)
    assert said(response) == [f"{assigned.reference}: the job link is revoked; it no longer opens the job."]
    assert client.get(f"/chauffeur/job/{key}/").status_code == 404
    page = response.content.decode()
    assert 'id="revoke-job-link"' not in page and "none that opens the job" in page
    assigned.refresh_from_db()
    assert assigned.driver == fleet["karl"] and assigned.status == BookingStatus.CONFIRMED
    before = snapshot(assigned)
    again = admin_client.post(act(assigned, "revoke-job-link"), follow=True, **ENGLISH)
    assert said(again) == [f"{assigned.reference}: no job link to revoke."]
    assert snapshot(assigned) == before


def test_a_ride_ahead_cannot_be_marked_completed_from_its_page(admin_client, fleet, ride):
    ahead = ride(pickup=(timezone.now() + timedelta(days=3)).replace(microsecond=0))
    assign(ahead, fleet["karl"], fleet["sedan"])
    before = snapshot(ahead)
    assert 'id="complete"' not in admin_client.get(page_of(ahead)).content.decode()
    response = admin_client.post(act(ahead, "complete"), follow=True, **ENGLISH)
    (refusal,) = said(response)
    assert refusal.startswith(
        f"{ahead.reference}: {ahead.reference} cannot be completed before its pickup time"
    )
    assert snapshot(ahead) == before
    with time_machine.travel(ahead.pickup_at + timedelta(minutes=1), tick=False):
        assert 'id="complete"' in admin_client.get(page_of(ahead)).content.decode()
        done = admin_client.post(act(ahead, "complete"), follow=True, **ENGLISH)
    assert said(done) == [f"{ahead.reference}: marked completed."]
    assert Booking.objects.get(pk=ahead.pk).status == BookingStatus.COMPLETED


def test_the_list_action_completes_only_rides_whose_pickup_has_come(admin_client, fleet, ride):
    past = ride(pickup=(timezone.now() - timedelta(hours=1)).replace(microsecond=0), status="confirmed")
    ahead = ride(pickup=(timezone.now() + timedelta(days=3)).replace(microsecond=0), status="confirmed")
    before = snapshot(ahead)
    response = admin_client.post(
        "/admin/booking/booking/",
        {"action": "mark_completed", "_selected_action": [past.pk, ahead.pk]},
        follow=True,
        **ENGLISH,
    )
    messages = said(response)
    assert f"Completed: {past.reference}." in messages
    assert any(
        message.startswith("Not completed, as their pickup time has not come: ")
        and ahead.reference in message
        for message in messages
    )
    assert Booking.objects.get(pk=past.pk).status == BookingStatus.COMPLETED
    assert snapshot(ahead) == before


def test_the_ride_day_reads_in_german(admin_client, fleet, assigned):
    move(assigned, fleet["karl"], RideState.ACCEPTED)
    page = admin_client.get(page_of(assigned), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Der Tag der Fahrt" in page and "Letzten Fahrtschritt rückgängig machen" in page
    assert "Auftragslink widerrufen" in page and "Karl Huber (Chauffeur)" in page


def policy_form(**changed) -> dict:
    values = {
        "included_waiting_minutes": 15,
        "included_waiting_flight_minutes": 60,
        "start_window_minutes": 90,
        "set_off_minutes": 30,
        "traveller_reminder_hours": 24,
        "driver_reminder_time": "18:00",
        "unassigned_alert_hours": 12,
        "paper_reminder_days": 30,
        "link_valid_hours": 12,
        "flight_buffer_schengen_minutes": 15,
        "flight_buffer_other_minutes": 30,
        "flight_buffer_baggage_minutes": 15,
    }
    return {**values, **changed}


def test_staff_set_the_start_window_and_never_below_the_set_off_time(admin_client):
    from dispatch.models import RideDayPolicy, ride_day_policy

    add = "/admin/dispatch/ridedaypolicy/add/"
    page = admin_client.get(add, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "„unterwegs“ ab (Minuten vor der Abholung)" in page
    refused = admin_client.post(add, policy_form(start_window_minutes=20), **ENGLISH)
    assert (
        refused.status_code == 200 and "At least the set-off time (30 minutes)." in refused.content.decode()
    )
    assert not RideDayPolicy.objects.exists()
    saved = admin_client.post(add, policy_form(start_window_minutes=45), **ENGLISH)
    assert saved.status_code == 302 and ride_day_policy().start_window_minutes == 45
