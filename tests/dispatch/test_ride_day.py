"""The ride's day (dispatch/ride_day.py): an assigned ride moves on one state at a time, a no-show only
after the included wait, completing completes the booking, and staff undo the last move. Every refusal
changes nothing."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from booking import ride
from booking.models import BookingEvent, BookingStatus, RideState, RideStep
from dispatch import ride_day
from dispatch.models import RideDayPolicy
from tests.dispatch.conftest import assign

pytestmark = pytest.mark.django_db
WHOLE_DAY = [
    RideState.ACCEPTED,
    RideState.ON_THE_WAY,
    RideState.ARRIVED,
    RideState.ON_BOARD,
    RideState.COMPLETED,
]


@pytest.fixture
def assigned(fleet, ride):
    booking = ride(pickup=(timezone.now() + timedelta(hours=2)).replace(microsecond=0))
    assign(booking, fleet["karl"], fleet["sedan"])
    booking.refresh_from_db()
    return booking


def move(booking, target, driver):
    return ride_day.advance(booking.pk, target, driver=driver, actor=f"{driver.name} (chauffeur)")


def snapshot(booking):
    booking.refresh_from_db()
    return booking.status, list(booking.ride_steps.values_list("state", "undone_at")), booking.history.count()


def test_a_chauffeur_takes_the_ride_through_every_state(fleet, assigned):
    karl = fleet["karl"]
    for state in WHOLE_DAY:
        assert ride_day.moves_now(assigned, ride.progress(assigned)) == [state]
        move(assigned, state, karl)
        assigned.refresh_from_db()
    progress = ride.progress(assigned)
    assert progress.state == RideState.COMPLETED and set(progress.times) == set(WHOLE_DAY)
    assert assigned.status == BookingStatus.COMPLETED
    rides = BookingEvent.objects.filter(booking=assigned, kind=BookingEvent.Kind.RIDE)
    assert [event.text for event in rides][:2] == ["Ride: — → accepted", "Ride: accepted → on the way"]
    assert {event.actor for event in rides} == {"Karl Huber (chauffeur)"}


@pytest.mark.parametrize("target", [RideState.ON_THE_WAY, RideState.COMPLETED, RideState.NO_SHOW, "flying"])
def test_a_move_out_of_order_is_refused_and_changes_nothing(fleet, assigned, target):
    before = snapshot(assigned)
    with pytest.raises(ride_day.RideMoveRefused) as refused:
        move(assigned, target, fleet["karl"])
    assert refused.value.code == "ride_state_conflict"
    assert snapshot(assigned) == before


def test_another_chauffeurs_ride_is_refused_and_changes_nothing(fleet, assigned):
    before = snapshot(assigned)
    with pytest.raises(ride_day.RideMoveRefused) as refused:
        move(assigned, RideState.ACCEPTED, fleet["mira"])
    assert refused.value.code == "not_your_ride" and snapshot(assigned) == before


def test_a_no_show_waits_for_the_included_time_longer_at_a_flight(fleet, assigned):
    RideDayPolicy.objects.create(pk=1, included_waiting_minutes=15, included_waiting_flight_minutes=60)
    karl = fleet["karl"]
    for state in WHOLE_DAY[:3]:
        move(assigned, state, karl)
    pickup = assigned.pickup_at
    with time_machine.travel(pickup + timedelta(minutes=14), tick=False):
        assert ride_day.moves_now(assigned, ride.progress(assigned)) == [RideState.ON_BOARD]
        before = snapshot(assigned)
        with pytest.raises(ride_day.RideMoveRefused, match="from"):
            move(assigned, RideState.NO_SHOW, karl)
        assert snapshot(assigned) == before
        assigned.flight_number = "OS 123"
    with time_machine.travel(pickup + timedelta(minutes=16), tick=False):
        assert RideState.NO_SHOW not in ride_day.moves_now(assigned, ride.progress(assigned))  # a flight: 60
        assigned.flight_number = ""
        assigned.save(update_fields=["flight_number"])
        assert ride_day.moves_now(assigned, ride.progress(assigned)) == [
            RideState.ON_BOARD,
            RideState.NO_SHOW,
        ]
        move(assigned, RideState.NO_SHOW, karl)
    assigned.refresh_from_db()
    assert assigned.status == BookingStatus.COMPLETED and ride.progress(assigned).state == RideState.NO_SHOW


def test_staff_undo_a_late_tap_and_the_ride_goes_on(fleet, assigned):
    karl = fleet["karl"]
    for state in WHOLE_DAY:
        move(assigned, state, karl)
    ride_day.undo_last(assigned.pk, actor="eva (staff)")
    assigned.refresh_from_db()
    assert assigned.status == BookingStatus.CONFIRMED
    assert ride.progress(assigned).state == RideState.ON_BOARD
    undone = RideStep.objects.get(booking=assigned, state=RideState.COMPLETED)
    assert undone.undone_by == "eva (staff)" and undone.undone_at is not None
    move(assigned, RideState.COMPLETED, karl)
    assigned.refresh_from_db()
    assert assigned.status == BookingStatus.COMPLETED


def test_nothing_to_undo_is_refused(assigned):
    before = snapshot(assigned)
    with pytest.raises(ride_day.RideMoveRefused):
        ride_day.undo_last(assigned.pk, actor="eva (staff)")
    assert snapshot(assigned) == before


def test_a_ride_not_yet_confirmed_cannot_move(fleet, ride):
    paid = ride()
    with pytest.raises(ride_day.RideMoveRefused) as refused:
        ride_day.advance(paid.pk, RideState.ACCEPTED, driver=None, actor="eva (staff)")
    assert refused.value.code == "not_your_ride" and not RideStep.objects.exists()
