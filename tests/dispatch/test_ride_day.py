"""The ride's day (dispatch/ride_day.py): an assigned ride moves on one state at a time and keeps to the
ride's clock: "on the way" and "arrived" from the policy's start window before the pickup ("on the way"
earlier only when the chauffeur confirmed the ride's day and time), "completed" not before the pickup, a
no-show only after the included wait (an hour only when meeting a flight at the airport). Completing
completes the booking, and staff undo the last move. Every refusal changes nothing and enqueues no
message for the traveller, whoever taps and however often."""

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from threading import Barrier
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.db import connection, connections
from django.utils import timezone

from booking import ride
from booking.models import BookingEvent, BookingStatus, RideState, RideStep
from dispatch import ride_day, waiting
from dispatch.models import RideDayPolicy
from jobqueue.models import Job
from tests.dispatch.conftest import assign

pytestmark = pytest.mark.django_db
VIENNA = ZoneInfo("Europe/Vienna")
NEWS_TASK = "booking.tasks.send_ride_news"
WHOLE_DAY = [
    RideState.ACCEPTED,
    RideState.ON_THE_WAY,
    RideState.ARRIVED,
    RideState.ON_BOARD,
    RideState.COMPLETED,
]


@pytest.fixture
def assigned(fleet, ride):
    """Karl's ride in two hours: outside the start window (90 minutes by default)."""
    booking = ride(pickup=(timezone.now() + timedelta(hours=2)).replace(microsecond=0))
    assign(booking, fleet["karl"], fleet["sedan"])
    booking.refresh_from_db()
    return booking


@pytest.fixture
def tuesday(fleet, ride):
    """Karl's ride on Tuesday 1 December 2026 at 10:00 (Vienna), accepted; the clock is frozen at Saturday
    28 November 08:11, the finding's "arrived" days early."""
    with time_machine.travel(datetime(2026, 11, 28, 8, 11, tzinfo=VIENNA), tick=False) as clock:
        booking = ride(pickup=datetime(2026, 12, 1, 10, 0, tzinfo=VIENNA))
        assign(booking, fleet["karl"], fleet["sedan"])
        booking.refresh_from_db()
        move(booking, RideState.ACCEPTED, fleet["karl"])
        yield booking, clock


def move(booking, target, driver, **confirmed):
    return ride_day.advance(
        booking.pk, target, driver=driver, actor=f"{driver.name} (chauffeur)", **confirmed
    )


def snapshot(booking):
    booking.refresh_from_db()
    return (
        booking.status,
        list(booking.ride_steps.values_list("state", "undone_at")),
        booking.history.count(),
        Job.objects.filter(task_path=NEWS_TASK).count(),
    )


def at(booking, minutes: int) -> datetime:
    return booking.pickup_at + timedelta(minutes=minutes)


def open_moves(booking) -> list[RideState]:
    """The moves the job page offers now: the next states whose time has come (a no-show's once its wait
    is over)."""
    now = timezone.now()
    return [move.state for move in ride_day.next_moves(booking, ride.progress(booking)) if move.open(now)]


def test_a_chauffeur_takes_the_ride_through_every_state_on_time(fleet, assigned):
    karl = fleet["karl"]
    for state, when in zip(WHOLE_DAY, (-120, -60, -5, 2, 30), strict=True):
        with time_machine.travel(at(assigned, when), tick=False):
            assert open_moves(assigned) == [state]
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


# --- the clock ---------------------------------------------------------------------------------------


def test_days_early_on_the_way_asks_first_and_arrived_or_completed_are_refused(fleet, tuesday):
    booking, _clock = tuesday
    karl = fleet["karl"]
    assert open_moves(booking) == []
    (offered,) = ride_day.next_moves(booking, ride.progress(booking))
    assert offered.state == RideState.ON_THE_WAY and offered.early_start(timezone.now())
    assert offered.opens_at == datetime(2026, 12, 1, 8, 30, tzinfo=VIENNA)  # 90 minutes before
    before = snapshot(booking)
    with pytest.raises(ride_day.RideMoveRefused) as asked:
        move(booking, RideState.ON_THE_WAY, karl)
    assert asked.value.code == ride_day.CONFIRM_EARLY_START
    assert str(asked.value.in_words()) == "This ride is on Tue 01.12.2026 at 10:00. Confirm to start now."
    assert snapshot(booking) == before
    for target in (RideState.ARRIVED, RideState.ON_BOARD, RideState.COMPLETED, RideState.NO_SHOW):
        with pytest.raises(ride_day.RideMoveRefused):
            move(booking, target, karl)
    assert snapshot(booking) == before  # nothing stored, nothing for the traveller


def test_a_confirmed_early_start_goes_through_and_the_history_says_so(fleet, tuesday):
    booking, _clock = tuesday
    move(booking, RideState.ON_THE_WAY, fleet["karl"], confirmed_pickup=booking.pickup_at)
    booking.refresh_from_db()
    assert ride.progress(booking).state == RideState.ON_THE_WAY
    assert (
        booking.history.last().text
        == "Ride: accepted → on the way, before its time, as the chauffeur confirmed"
    )
    assert Job.objects.filter(task_path=NEWS_TASK).count() == 1


def test_arrived_waits_for_the_start_window_even_after_an_early_start(fleet, tuesday):
    booking, clock = tuesday
    karl = fleet["karl"]
    clock.move_to(at(booking, -180))  # a far pickup: started three hours ahead
    move(booking, RideState.ON_THE_WAY, karl, confirmed_pickup=booking.pickup_at)
    clock.move_to(at(booking, -91))
    before = snapshot(booking)
    with pytest.raises(ride_day.RideMoveRefused) as refused:
        move(booking, RideState.ARRIVED, karl)
    assert refused.value.code == "ride_too_early"
    assert str(refused.value.in_words()) == "“Arrived” possible from 08:30."
    assert snapshot(booking) == before
    clock.move_to(at(booking, -90))
    move(booking, RideState.ARRIVED, karl)
    assert ride.progress(booking).state == RideState.ARRIVED


def test_a_confirmation_of_another_pickup_time_is_asked_again(fleet, tuesday):
    booking, _clock = tuesday
    before = snapshot(booking)
    for stale in (booking.pickup_at - timedelta(days=1), None):  # the ride was moved since it was asked
        with pytest.raises(ride_day.RideMoveRefused) as asked:
            move(booking, RideState.ON_THE_WAY, fleet["karl"], confirmed_pickup=stale)
        assert asked.value.code == ride_day.CONFIRM_EARLY_START
    assert snapshot(booking) == before


def test_a_confirmation_never_opens_another_move_early(fleet, tuesday):
    booking, clock = tuesday
    karl = fleet["karl"]
    clock.move_to(at(booking, -60))
    for state in (RideState.ON_THE_WAY, RideState.ARRIVED, RideState.ON_BOARD):
        move(booking, state, karl)
    before = snapshot(booking)
    with pytest.raises(ride_day.RideMoveRefused) as refused:
        move(booking, RideState.COMPLETED, karl, confirmed_pickup=booking.pickup_at)
    assert refused.value.code == "ride_too_early"
    assert str(refused.value.in_words()) == "“Completed” possible from 10:00."
    assert snapshot(booking) == before
    clock.move_to(booking.pickup_at)
    move(booking, RideState.COMPLETED, karl)
    booking.refresh_from_db()
    assert booking.status == BookingStatus.COMPLETED


def test_a_time_of_another_day_is_said_with_its_date_and_in_german(fleet, tuesday):
    from django.utils import translation

    booking, _clock = tuesday
    with translation.override("de"):
        said = ride_day.possible_from(RideState.ARRIVED, at(booking, -90), timezone.now())
        assert str(said) == "„Angekommen“ möglich ab Di., 01.12.2026, 08:30."
        with pytest.raises(ride_day.RideMoveRefused) as asked:
            move(booking, RideState.ON_THE_WAY, fleet["karl"])
        assert str(asked.value.in_words()) == (
            "Diese Fahrt ist am Di., 01.12.2026 um 10:00. Bestätigen Sie, um jetzt loszufahren."
        )


def test_staff_set_the_start_window_in_the_policy(fleet, tuesday):
    booking, clock = tuesday
    RideDayPolicy.objects.create(pk=1, start_window_minutes=30, set_off_minutes=30)
    clock.move_to(at(booking, -31))
    assert open_moves(booking) == []
    clock.move_to(at(booking, -30))
    assert open_moves(booking) == [RideState.ON_THE_WAY]


def test_the_start_window_is_never_shorter_than_the_set_off_time():
    policy = RideDayPolicy(start_window_minutes=20, set_off_minutes=30)
    with pytest.raises(ValidationError) as refused:
        policy.full_clean()
    assert refused.value.message_dict == {"start_window_minutes": ["At least the set-off time (30 minutes)."]}
    RideDayPolicy(start_window_minutes=30, set_off_minutes=30).full_clean()
    assert RideDayPolicy().start_window_minutes == 90


def test_a_late_chauffeur_moves_on_at_once(fleet, tuesday):
    booking, clock = tuesday
    clock.move_to(at(booking, 20))
    for state in (RideState.ON_THE_WAY, RideState.ARRIVED, RideState.ON_BOARD, RideState.COMPLETED):
        assert open_moves(booking)[0] == state
        move(booking, state, fleet["karl"])
    assert ride.progress(booking).state == RideState.COMPLETED


# --- the included wait ---------------------------------------------------------------------------------


def test_a_no_show_waits_for_the_included_time_longer_only_at_a_flight_at_the_airport(fleet, assigned):
    RideDayPolicy.objects.create(pk=1, included_waiting_minutes=15, included_waiting_flight_minutes=60)
    karl = fleet["karl"]
    with time_machine.travel(at(assigned, -60), tick=False):
        for state in WHOLE_DAY[:3]:
            move(assigned, state, karl)
    with time_machine.travel(at(assigned, 14), tick=False):
        assert open_moves(assigned) == [RideState.ON_BOARD]
        before = snapshot(assigned)
        with pytest.raises(ride_day.RideMoveRefused, match="from") as refused:
            move(assigned, RideState.NO_SHOW, karl)
        assert refused.value.code == "ride_too_early" and snapshot(assigned) == before
    with time_machine.travel(at(assigned, 16), tick=False):
        assigned.flight_number, assigned.origin = "OS 123", "Flughafen Wien (VIE)"
        assert RideState.NO_SHOW not in open_moves(assigned)  # 60
        assigned.origin = "Hotel Sacher"  # a flight number on a ride from the hotel: 15 minutes
        assigned.save(update_fields=["flight_number", "origin"])
        assert open_moves(assigned) == [
            RideState.ON_BOARD,
            RideState.NO_SHOW,
        ]
        move(assigned, RideState.NO_SHOW, karl)
    assigned.refresh_from_db()
    assert assigned.status == BookingStatus.COMPLETED and ride.progress(assigned).state == RideState.NO_SHOW


@pytest.mark.parametrize(
    ("origin", "minutes"),
    [
        ("Hotel Sacher, Philharmoniker Str. 4, 1010 Wien", 15),
        ("Flughafen Wien-Schwechat (VIE), Schwechat, Österreich", 60),
        ("Vienna International Airport (VIE), Schwechat, Austria", 60),
        ("VIE Terminal 3", 60),
        ("Wien Hauptbahnhof", 15),
        ("Moxy Hotel Vienna Airport", 15),
    ],
)
def test_the_flight_wait_is_for_a_pickup_at_an_airport_only(make_booking, origin, minutes):
    booking = make_booking(origin=origin, destination="Flughafen Wien", flight_number="OS 123")
    assert waiting.included_waiting(booking) == timedelta(minutes=minutes)
    booking.flight_number = ""  # no flight to meet: the ordinary wait
    assert waiting.included_waiting(booking) == timedelta(minutes=15)


# --- staff's undo, and taps again --------------------------------------------------------------------


def test_staff_undo_a_late_tap_and_the_ride_goes_on(fleet, assigned):
    karl = fleet["karl"]
    with time_machine.travel(at(assigned, 1), tick=False):
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


def test_an_early_arrived_undone_by_staff_keeps_to_the_clock_when_tapped_again(fleet, tuesday):
    booking, clock = tuesday
    karl = fleet["karl"]
    clock.move_to(at(booking, -60))
    move(booking, RideState.ON_THE_WAY, karl)
    move(booking, RideState.ARRIVED, karl)
    ride_day.undo_last(booking.pk, actor="eva (staff)")
    ride_day.undo_last(booking.pk, actor="eva (staff)")  # back to "accepted"
    clock.move_to(at(booking, -24 * 60))  # the day before: the page asks again, arrival is refused
    before = snapshot(booking)
    with pytest.raises(ride_day.RideMoveRefused) as asked:
        move(booking, RideState.ON_THE_WAY, karl)
    assert asked.value.code == ride_day.CONFIRM_EARLY_START and snapshot(booking) == before


def test_a_second_tap_of_the_same_move_is_refused_and_sends_nothing(fleet, assigned):
    with time_machine.travel(at(assigned, -30), tick=False):
        for state in WHOLE_DAY[:3]:
            move(assigned, state, fleet["karl"])
        before = snapshot(assigned)
        for driver in (fleet["karl"], None):  # the same phone again, or staff
            with pytest.raises(ride_day.RideMoveRefused):
                ride_day.advance(assigned.pk, RideState.ARRIVED, driver=driver, actor="someone")
    assert snapshot(assigned) == before and before[3] == 2  # "on the way" and "arrived", once each


def test_staff_keep_to_the_same_clock(assigned):
    assign_steps = ride_day.advance(assigned.pk, RideState.ACCEPTED, driver=None, actor="eva (staff)")
    before = snapshot(assign_steps)
    with pytest.raises(ride_day.RideMoveRefused) as refused:
        ride_day.advance(assigned.pk, RideState.ON_THE_WAY, driver=None, actor="eva (staff)")
    assert refused.value.code == ride_day.CONFIRM_EARLY_START and snapshot(assigned) == before


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


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_two_taps_at_once_make_one_move_and_one_message(fleet, ride):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises its writers; the race is PostgreSQL's (CI's second run)")
    booking = ride(pickup=(timezone.now() + timedelta(minutes=30)).replace(microsecond=0))
    assign(booking, fleet["karl"], fleet["sedan"])
    for state in WHOLE_DAY[:2]:
        move(booking, state, fleet["karl"])
    both = Barrier(2)

    def tap(_):
        try:
            both.wait()
            move(booking, RideState.ARRIVED, fleet["karl"])
            return "moved"
        except ride_day.RideMoveRefused as refused:
            return refused.code
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = sorted(pool.map(tap, range(2)))
    assert answers == ["moved", "ride_state_conflict"]
    assert list(booking.ride_steps.filter(state=RideState.ARRIVED).values_list("undone_at", flat=True)) == [
        None
    ]
    news = Job.objects.filter(task_path=NEWS_TASK).values_list("args_kwargs", flat=True)
    assert sorted(job["args"][1] for job in news) == ["arrived", "on_the_way"]  # "arrived" once
