"""Dispatch (dispatch/assignment.py): a driver and vehicle confirm a paid booking when the vehicle's class is
the booked one and neither is on another ride at the same time (a ride lasts its stored route's driving
time, or its booked hours); the driver gets the job, the customer the driver's name and phone."""

from datetime import datetime, timedelta
from decimal import Decimal
from importlib import import_module
from zoneinfo import ZoneInfo

import pytest
from django.apps import apps
from django.core import mail

from apikit.errors import DomainError
from booking.models import Booking, BookingEvent
from dispatch import tasks as dispatch_tasks
from fleet.models import Driver
from jobqueue.models import Job
from payments import cancellation
from tests.dispatch.conftest import assign
from tests.queued import run_pending_jobs

VIENNA = ZoneInfo("Europe/Vienna")
pytestmark = pytest.mark.django_db


def snapshot():
    return list(Booking.objects.order_by("pk").values_list("status", "driver", "vehicle"))


def test_assigning_confirms_and_tells_driver_and_customer(fleet, ride, django_capture_on_commit_callbacks):
    booking = ride(locale="de")
    with django_capture_on_commit_callbacks(execute=True):
        assign(booking, fleet["karl"], fleet["sedan"])
    booking.refresh_from_db()
    assert (booking.status, booking.driver, booking.vehicle) == ("confirmed", fleet["karl"], fleet["sedan"])
    job, customer = mail.outbox
    assert job.to == ["karl@chauffeur.test"] and job.subject == f"Fahrt {booking.reference}"  # German first
    assert "Fahrgast:   Anna Berger, +43 1 234" in job.body and "etwa 24 Minuten" in job.body
    assert customer.to == ["anna@example.com"] and "Karl Huber, Telefon +43 660 1112223" in customer.body
    events = list(BookingEvent.objects.values_list("kind", "actor", "text"))
    assert events == [
        ("assignment", "eva (staff)", "Karl Huber with W-1000A (E-Class)"),
        ("status", "eva (staff)", "paid → confirmed"),
    ]


def test_the_vehicle_must_be_of_the_booked_class(fleet, ride):
    booking = ride()
    with pytest.raises(DomainError) as refused:
        assign(booking, fleet["karl"], fleet["van"])
    assert (
        refused.value.code == "class_mismatch"
        and "business-van" not in refused.value.detail.split("booked as")[1]
    )
    assert snapshot() == [("paid", None, None)] and not BookingEvent.objects.exists()


@pytest.mark.parametrize("state", ["pending_payment", "cancelled", "completed", "expired"])
def test_only_a_paid_booking_can_be_assigned(fleet, ride, state):
    booking = ride(status=state)
    with pytest.raises(DomainError) as refused:
        assign(booking, fleet["karl"], fleet["sedan"])
    assert refused.value.code == "not_assignable"
    assert snapshot() == [(state, None, None)]


def test_a_driver_cannot_hold_two_overlapping_rides(fleet, ride):
    first = ride()
    assign(first, fleet["karl"], fleet["sedan"])
    overlapping = ride(pickup=first.pickup_at + timedelta(minutes=20))  # the first lasts 24 min 15 s
    with pytest.raises(DomainError) as refused:
        assign(overlapping, fleet["karl"], fleet["sedan2"])
    assert refused.value.code == "driver_busy" and first.reference in refused.value.detail
    assert snapshot()[1] == ("paid", None, None)
    assign(overlapping, fleet["mira"], fleet["sedan2"])  # another driver and car may take it
    back_to_back = ride(pickup=first.pickup_at + timedelta(seconds=1455))
    assign(back_to_back, fleet["karl"], fleet["sedan"])  # starts as the first ends: no overlap


def test_a_vehicle_cannot_be_on_two_rides_at_once(fleet, ride):
    first = ride()
    assign(first, fleet["karl"], fleet["sedan"])
    second = ride(pickup=first.pickup_at - timedelta(minutes=10))
    with pytest.raises(DomainError) as refused:
        assign(second, fleet["mira"], fleet["sedan"])
    assert refused.value.code == "vehicle_busy"


def test_an_hourly_hire_holds_its_driver_for_its_hours(fleet, ride):
    hire = ride(booking_type="hourly", duration_hours=Decimal("3"))
    assign(hire, fleet["karl"], fleet["sedan"])
    later = ride(pickup=hire.pickup_at + timedelta(hours=2, minutes=59))
    with pytest.raises(DomainError):
        assign(later, fleet["karl"], fleet["sedan2"])


def test_overlaps_count_real_time_across_the_autumn_clock_change(fleet, ride):
    night = ride(
        pickup=datetime(2026, 10, 25, 1, 30, tzinfo=VIENNA), duration_s=3600
    )  # CEST, ends 02:30 CEST
    assign(night, fleet["karl"], fleet["sedan"])
    # 02:15 CET is 45 minutes after the first ride ended, though the wall clock shows 02:15 < 02:30.
    after = ride(pickup=datetime(2026, 10, 25, 2, 15, fold=1, tzinfo=VIENNA))
    assign(after, fleet["karl"], fleet["sedan"])
    assert Booking.objects.filter(status="confirmed").count() == 2


def test_a_reassignment_tells_the_replaced_driver(fleet, ride, django_capture_on_commit_callbacks):
    booking = ride()
    assign(booking, fleet["karl"], fleet["sedan"])
    with django_capture_on_commit_callbacks(execute=True):
        assign(booking, fleet["mira"], fleet["sedan"])
    assert Booking.objects.get().driver == fleet["mira"]
    job, customer, off = mail.outbox
    assert job.to == ["mira@chauffeur.test"] and off.to == ["karl@chauffeur.test"]
    assert off.subject == f"Fahrt {booking.reference} entfällt"
    assert "Mira Novak" in customer.body
    assert BookingEvent.objects.filter(kind="status").count() == 1  # confirmed once


@pytest.mark.parametrize(
    ("task_path", "arguments", "with_link"),
    [("dispatch.tasks.send_assignment", 3, True), ("booking.tasks.send_assignment", 2, False)],
)
def test_a_job_queued_under_an_earlier_task_path_sends_the_assignment_once_migrated(
    fleet, ride, task_path, arguments, with_link
):
    booking = ride()
    assign(booking, fleet["karl"], fleet["sedan"])  # its job waits on the queue
    job = Job.objects.get(task_path=dispatch_tasks.send_assignment_with_job_link.module_path)
    job.task_path, job.args_kwargs = task_path, {"args": job.args_kwargs["args"][:arguments], "kwargs": {}}
    job.save(update_fields=["task_path", "args_kwargs"])
    renamed = import_module("jobqueue.migrations.0004_jobs_under_renamed_packages")
    renamed.follow(renamed.MOVED)(apps, None)
    run_pending_jobs()
    job.refresh_from_db()
    assert job.status == "SUCCESSFUL"
    assert job.task_path == renamed.MOVED[task_path]
    chauffeur, customer = mail.outbox
    assert chauffeur.to == ["karl@chauffeur.test"] and customer.to == ["anna@example.com"]
    assert ("/chauffeur/job/" in chauffeur.body) is with_link


def test_an_inactive_driver_or_a_ride_without_pickup_cannot_be_assigned(fleet, ride):
    Driver.objects.filter(pk=fleet["karl"].pk).update(active=False)
    with pytest.raises(DomainError):
        assign(ride(), fleet["karl"], fleet["sedan"])
    with pytest.raises(DomainError):
        assign(ride(pickup_at=None), fleet["mira"], fleet["sedan"])
    assert all(state == ("paid", None, None) for state in snapshot())


def test_cancelling_a_confirmed_ride_tells_its_driver(
    fleet, ride, sandbox, django_capture_on_commit_callbacks
):
    booking = ride(payment_provider="sandbox", payment_intent_id="sbx_pi_1")
    assign(booking, fleet["karl"], fleet["sedan"])
    with django_capture_on_commit_callbacks(execute=True):
        cancellation.cancel(booking.pk, actor="customer")
    assert [message.to for message in mail.outbox] == [["anna@example.com"], ["karl@chauffeur.test"]]
    assert "entfällt" in mail.outbox[1].subject


def test_the_customer_and_the_agent_see_the_driver_once_confirmed(client, fleet, ride):
    booking = ride()
    url = f"/api/v1/bookings/{booking.reference}"
    assert client.get(url, {"email": "anna@example.com"}).json()["driver"] is None
    assign(booking, fleet["karl"], fleet["sedan"])
    assert client.get(url, {"email": "anna@example.com"}).json()["driver"] == {
        "name": "Karl Huber",
        "phone": "+43 660 1112223",
    }
