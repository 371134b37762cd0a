"""The ride's day on the dispatch board (dispatch/planning.py, dispatch/admin/board.py): each card's ride
state and the time of its last move, the chauffeurs late to set off, the day's no-shows and waiting beyond
the included time; the board's live part that board.js fetches (staff with the board's permission only);
and the board's queries, which do not grow with its rides. The clock is frozen on a Vienna morning."""

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth.models import Permission, User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from booking.models import BookingStatus, RideState
from dispatch import planning, ride_day
from dispatch.models import RideDayPolicy, ride_day_policy
from fleet.models import Driver, Vehicle
from pricing.models import VehicleClass

pytestmark = pytest.mark.django_db
BOARD = "/admin/booking/booking/dispatch/"
EXPORT = "/admin/booking/booking/dispatch/rides.csv"
VIENNA = ZoneInfo("Europe/Vienna")
# Today's date, frozen at its hours: the test client's session (signed in at the real time) stays valid.
DAY = datetime.now(VIENNA).replace(hour=0, minute=0, second=0, microsecond=0)


def at(hour: int, minute: int = 0, *, days: int = 0, seconds: int = 0) -> datetime:
    return DAY.replace(hour=hour, minute=minute, second=seconds) + timedelta(days=days)


@pytest.fixture
def clock():
    """The frozen clock, at 08:00 on DAY; `clock.move_to(at(…))` moves it."""
    with time_machine.travel(at(8), tick=False) as traveller:
        yield traveller


@pytest.fixture
def karl(db):
    return Driver.objects.create(name="Karl Huber", phone="+43 660 1112223")


@pytest.fixture
def confirmed(make_booking, karl):
    """A ride Karl drives at `pickup` (a new vehicle each: the board does not check clashes)."""
    plates = iter(range(1000, 9999))

    def make(pickup: datetime, **fields):
        sedan = Vehicle.objects.create(
            plate=f"W-{next(plates)}A",
            vehicle_class=VehicleClass.objects.get(code="executive"),
            seats=3,
            luggage=3,
        )
        values = {
            "status": BookingStatus.CONFIRMED,
            "paid_at": pickup - timedelta(days=3),
            "pickup_at": pickup,
            "duration_s": 1455,
            "driver": karl,
            "vehicle": sedan,
            "name": "Anna Berger",
        }
        return make_booking(**{**values, **fields})

    return make


def moves(clock, booking, *steps: tuple[datetime, RideState]) -> None:
    """Staff move the ride on at each step's time (the chauffeur's page does the same for its driver)."""
    for when, state in steps:
        clock.move_to(when)
        ride_day.advance(booking.pk, state, driver=None, actor="eva (staff)")


def card_of(html: str, reference: str) -> str:
    found = re.search(rf'<a class="ride [^"]*"[^>]*>(?:(?!</a>).)*{reference}(?:(?!</a>).)*</a>', html, re.S)
    assert found, reference
    return found[0]


def cells(row: str) -> list[str]:
    return [
        " ".join(re.sub(r"<[^>]+>", " ", cell).split())
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    ]


def section(html: str) -> str:
    return re.search(r'<section id="ride-day">(.*?)</section>', html, re.S)[1]


def test_each_card_shows_the_ride_state_and_the_time_of_the_last_move(
    admin_client, clock, confirmed, make_booking
):
    moving = confirmed(at(10))
    waiting = confirmed(at(12))
    nobody = make_booking(status="paid", paid_at=at(7), pickup_at=at(11), duration_s=900, name="Carla Wolf")
    moves(clock, moving, (at(8, 5), RideState.ACCEPTED), (at(9, 20), RideState.ON_THE_WAY))
    html = admin_client.get(BOARD).content.decode()
    assert '<span class="ride-state on_the_way">on the way · 09:20</span>' in card_of(html, moving.reference)
    assert '<span class="ride-state none">not accepted yet</span>' in card_of(html, waiting.reference)
    assert "ride-state" not in card_of(html, nobody.reference)  # nobody drives it: no ride state yet
    ride_day.undo_last(moving.pk, actor="eva (staff)")  # a wrong tap: the card goes back
    html = admin_client.get(BOARD).content.decode()
    assert '<span class="ride-state accepted">accepted · 08:05</span>' in card_of(html, moving.reference)


def test_a_ride_in_german_shows_its_state_in_german(admin_client, clock, confirmed):
    moving = confirmed(at(10))
    moves(clock, moving, (at(8, 5), RideState.ACCEPTED))
    html = admin_client.get(BOARD, headers={"accept-language": "de"}).content.decode()
    assert "angenommen · 08:05" in card_of(html, moving.reference) and "aktualisiert 08:05" in html


def test_a_chauffeur_not_on_the_way_by_the_set_off_time_is_late(admin_client, clock, confirmed):
    RideDayPolicy.objects.create(pk=1, set_off_minutes=30)
    policy = ride_day_policy()
    ride = confirmed(at(10))
    clock.move_to(at(9, 29, seconds=59))
    assert not planning.watch(ride, policy, at(9, 29, seconds=59)).late
    html = admin_client.get(BOARD).content.decode()
    assert 'id="late"' not in html and "late" not in re.search(r'class="ride ([^"]*)"', html)[1]
    clock.move_to(at(9, 30))
    assert planning.watch(ride, policy, at(9, 30)).late
    moves(clock, ride, (at(9, 31), RideState.ACCEPTED))  # accepted is not on the way
    html = admin_client.get(BOARD).content.decode()
    card = card_of(html, ride.reference)
    assert card.startswith('<a class="ride confirmed late"')
    assert '<strong class="late-note">Late: not on the way yet</strong>' in card  # in words, not colour alone
    assert '<strong id="late">Not on the way in time: 1</strong>' in html
    moves(clock, ride, (at(9, 40), RideState.ON_THE_WAY))
    html = admin_client.get(BOARD).content.decode()
    assert "late" not in card_of(html, ride.reference) and 'id="late"' not in html


def test_a_past_pickup_without_the_chauffeur_on_the_way_is_late_but_not_an_unassigned_or_finished_ride(
    clock, confirmed, make_booking
):
    policy = ride_day_policy()  # the default: 30 minutes
    clock.move_to(at(11))
    never_set_off = confirmed(at(10))
    done = confirmed(at(9), status=BookingStatus.COMPLETED)  # marked completed by hand
    unassigned = make_booking(status="paid", paid_at=at(7), pickup_at=at(11, 15), duration_s=900)
    assert [
        planning.watch(booking, policy, at(11)).late for booking in (never_set_off, done, unassigned)
    ] == [
        True,
        False,
        False,
    ]


def test_the_days_no_shows_and_waits_beyond_the_included_are_listed(admin_client, clock, confirmed):
    RideDayPolicy.objects.create(pk=1, included_waiting_minutes=15, included_waiting_flight_minutes=60)
    early = confirmed(at(9), name="Early Arrival")  # arrived before the pickup: waiting starts at the pickup
    moves(
        clock,
        early,
        (at(8, 10), RideState.ACCEPTED),
        (at(8, 30), RideState.ON_THE_WAY),
        (at(8, 55), RideState.ARRIVED),
        (at(9, 20, seconds=59), RideState.ON_BOARD),
    )
    late = confirmed(at(10), name="Late Chauffeur")  # came late: waiting starts at the arrival
    moves(
        clock,
        late,
        (at(9, 30), RideState.ACCEPTED),
        (at(9, 31), RideState.ON_THE_WAY),
        (at(10, 10), RideState.ARRIVED),
        (at(10, 32), RideState.ON_BOARD),
    )
    flight = confirmed(
        at(11), name="Flight Within", flight_number="OS 123", origin="Flughafen Wien (VIE)"
    )  # 40 of 60 min
    moves(
        clock,
        flight,
        (at(10, 35), RideState.ACCEPTED),
        (at(10, 36), RideState.ON_THE_WAY),
        (at(11), RideState.ARRIVED),
        (at(11, 40), RideState.ON_BOARD),
    )
    gone = confirmed(at(12), name="Nobody Came")
    moves(
        clock,
        gone,
        (at(11, 41), RideState.ACCEPTED),
        (at(11, 42), RideState.ON_THE_WAY),
        (at(12), RideState.ARRIVED),
        (at(12, 16), RideState.NO_SHOW),
    )
    yesterday = confirmed(at(12, days=-1), name="Yesterday Gone")
    moves(
        clock,
        yesterday,
        (at(11, days=-1), RideState.ACCEPTED),
        (at(11, 1, days=-1), RideState.ON_THE_WAY),
        (at(12, days=-1), RideState.ARRIVED),
        (at(12, 30, days=-1), RideState.NO_SHOW),
    )
    clock.move_to(at(13))

    found = list(planning.rides(at(0), at(0, days=1)))
    listed = [
        (wait.booking.name, wait.no_show, wait.waited, wait.included, wait.beyond)
        for wait in planning.waits(found, ride_day_policy())
    ]
    assert listed == [
        ("Early Arrival", False, 20, 15, 5),  # 09:00 → 09:20:59, seconds dropped
        ("Late Chauffeur", False, 22, 15, 7),  # 10:10 → 10:32
        ("Nobody Came", True, 16, 15, 1),
    ]
    shown = section(admin_client.get(BOARD).content.decode())
    rows = [cells(row) for row in re.findall(r"<tr class[^>]*>(.*?)</tr>", shown, re.S)]
    assert [row[0] for row in rows] == [
        f"{early.reference} Early Arrival",
        f"{late.reference} Late Chauffeur",
        f"{gone.reference} Nobody Came",
    ]
    assert [row[2:] for row in rows] == [
        ["Karl Huber", "Waiting", "20", "15", "5"],
        ["Karl Huber", "Waiting", "22", "15", "7"],
        ["Karl Huber", "No-show", "16", "15", "1"],
    ]
    assert "Flight Within" not in shown and "Yesterday Gone" not in shown  # another day's no-show


def test_a_day_without_no_shows_or_long_waits_says_so(admin_client, clock, confirmed):
    confirmed(at(10))
    shown = section(admin_client.get(BOARD).content.decode())
    assert "No no-shows and no waiting beyond the included time." in shown and "<table" not in shown


# --- the live part: what board.js fetches -----------------------------------------------------------------


def test_the_board_names_its_live_part_with_the_same_range_and_search(admin_client, clock, confirmed):
    html = admin_client.get(BOARD, {"range": "tomorrow", "q": "Anna & Co"}).content.decode()
    assert (
        'data-url="/admin/booking/booking/dispatch/?range=tomorrow&amp;q=Anna+%26+Co&amp;part=live"' in html
    )
    assert re.search(r'<script src="/static/dispatch/admin/board\.js" defer></script>', html)
    assert "<script>" not in html  # no inline script: the CSP refuses it


def test_the_live_part_is_the_boards_counts_lanes_and_waits_for_the_same_filters(
    admin_client, clock, confirmed
):
    today, tomorrow = confirmed(at(10), name="Today Rider"), confirmed(at(10, days=1), name="Tomorrow Rider")
    response = admin_client.get(BOARD, {"range": "tomorrow", "part": "live"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    fragment = response.content.decode()
    assert "<html" not in fragment and 'id="toolbar"' not in fragment  # the part alone, no admin page
    assert fragment.startswith('<p id="summary">1 ride · <span id="updated">updated 08:00</span></p>')
    assert tomorrow.reference in fragment and today.reference not in fragment
    assert 'id="board"' in fragment and 'id="ride-day"' in fragment
    searched = admin_client.get(BOARD, {"range": "tomorrow", "q": "Nobody", "part": "live"}).content.decode()
    assert tomorrow.reference not in searched and "0 rides" in searched
    moves(clock, tomorrow, (at(8, 30), RideState.ACCEPTED))
    again = admin_client.get(BOARD, {"range": "tomorrow", "part": "live"}).content.decode()
    assert "accepted · 08:30" in card_of(again, tomorrow.reference) and "updated 08:30" in again


def test_the_live_part_is_for_staff_with_the_boards_permission_only(client, clock, confirmed):
    ride = confirmed(at(10))
    live = {"part": "live"}
    anonymous = client.get(BOARD, live)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/admin/login/")
    client.force_login(User.objects.create_user("anna", password="pw"))  # a customer account, not staff
    refused = client.get(BOARD, live)
    assert refused.status_code == 302 and ride.reference not in refused.content.decode()
    client.force_login(User.objects.create_user("max", password="pw", is_staff=True))  # staff, no permission
    assert client.get(BOARD, live).status_code == 403
    viewer = User.objects.create_user("vera", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_booking"))
    client.force_login(viewer)
    assert ride.reference in client.get(BOARD, live).content.decode()


# --- queries: one set for the whole board, however many rides it shows ---------------------------------------


def queries(client, path: str, **params) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path, params).status_code == 200
    return len(captured)


@pytest.mark.parametrize(("path", "params"), [(BOARD, {}), (BOARD, {"part": "live"}), (EXPORT, {})])
def test_the_boards_queries_do_not_grow_with_its_rides(admin_client, clock, confirmed, path, params):
    RideDayPolicy.objects.create(pk=1, included_waiting_minutes=15)

    def day_of_rides(hour: int) -> None:
        for minute in (0, 30):
            booking = confirmed(at(hour, minute))
            moves(
                clock,
                booking,
                (at(hour - 1, minute), RideState.ACCEPTED),
                (at(hour - 1, minute + 1), RideState.ON_THE_WAY),
                (at(hour, minute), RideState.ARRIVED),
                (at(hour, minute + 20), RideState.ON_BOARD),
            )

    day_of_rides(10)
    clock.move_to(at(10, 55))
    queries(admin_client, path, **params)  # warm: the first request of a session also reads what it caches
    few = queries(admin_client, path, **params)
    for hour in (12, 14, 16):
        day_of_rides(hour)
    clock.move_to(at(17))
    html = admin_client.get(BOARD).content.decode()
    assert len(re.findall(r'<tr class="waited">', html)) == 8  # every ride waited 5 minutes beyond
    assert queries(admin_client, path, **params) == few
