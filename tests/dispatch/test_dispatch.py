"""The dispatch board and its CSV export (dispatch/admin/board.py): rides of today, tomorrow or the next
7 Vienna days per driver, unassigned ones first and highlighted, searched over reference, name, e-mail,
phone, from and to; the export is exactly the filtered list. The booking list filters and searches alike."""

import csv
import io
import re
from datetime import datetime, time, timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from booking.models import Booking
from fleet.models import Driver, Vehicle
from pricing.models import VehicleClass

pytestmark = pytest.mark.django_db
BOARD, EXPORT, LIST = (
    "/admin/booking/booking/dispatch/",
    "/admin/booking/booking/dispatch/rides.csv",
    "/admin/booking/booking/",
)


def at(days: int, hour: int, minute: int = 0) -> datetime:
    """A Vienna wall-clock time `days` from today."""
    day = timezone.localdate() + timedelta(days=days)
    return datetime.combine(day, time(hour, minute), tzinfo=timezone.get_default_timezone())


@pytest.fixture
def day(make_booking):
    karl = Driver.objects.create(name="Karl Huber", phone="+43 660 1112223")
    Driver.objects.create(name="Mira Novak", phone="+43 660 4445556")  # free all day
    sedan = Vehicle.objects.create(
        plate="W-1000A", vehicle_class=VehicleClass.objects.get(code="executive"), seats=3, luggage=3
    )
    rides = {
        "waiting": make_booking(
            status="paid",
            paid_at=timezone.now(),
            pickup_at=at(0, 23, 30),
            duration_s=1455,
            name="Anna Berger",
            phone="+43 660 1234567",
            email="anna@example.com",
        ),
        "driven": make_booking(
            status="confirmed",
            paid_at=timezone.now(),
            pickup_at=at(0, 23, 0),
            duration_s=1455,
            driver=karl,
            vehicle=sedan,
            name="Bert Maier",
            origin="Hotel Imperial",
            destination="Schönbrunn",
            phone="+43 1 5550",
        ),
        "tomorrow": make_booking(
            status="paid",
            paid_at=timezone.now(),
            pickup_at=at(1, 0, 30),
            duration_s=900,
            name="Carla Wolf",
            destination="Wien Hauptbahnhof",
        ),
        "cancelled": make_booking(status="cancelled", pickup_at=at(0, 22, 0), name="Dora Gone"),
        "next_week": make_booking(
            status="paid", paid_at=timezone.now(), pickup_at=at(6, 9, 0), name="Emil Late"
        ),
    }
    return rides


def lanes(html: str) -> dict[str, list[str]]:
    """The references on each lane of the board, by the lane's first line."""
    found = {}
    for lane in re.findall(r'<tr class="(?:driver|unassigned)">(.*?)</tr>', html, re.S):
        name = re.search(r'<th class="lane">([^<]+)', lane)[1].strip()
        found[name] = re.findall(r"CB-[A-Z0-9]{6}", lane)
    return found


def test_todays_board_per_driver_with_the_unassigned_first_and_highlighted(admin_client, day):
    html = admin_client.get(BOARD).content.decode()
    assert lanes(html) == {
        "Unassigned": [day["waiting"].reference],
        "Karl Huber": [day["driven"].reference],
        "Mira Novak": [],
    }
    assert re.search(
        rf'class="ride paid needs-driver"[^>]*>\s*<span class="when">23:30–23:54</span> <span class="ref">{day["waiting"].reference}',
        html,
    )
    assert "23:00–23:24" in html and '<strong id="waiting">1 needs a driver</strong>' in html
    assert '<span class="muted">Executive Class' in html  # the class by its name, not its code


def test_tomorrow_and_the_next_seven_days_follow_vienna_days(admin_client, day):
    assert lanes(admin_client.get(BOARD, {"range": "tomorrow"}).content.decode())["Unassigned"] == [
        day["tomorrow"].reference
    ]
    week = admin_client.get(BOARD, {"range": "next7"}).content.decode()
    assert len(re.findall(r"<th>\w{3} \d\d\.\d\d\.\d{4}</th>", week)) == 7
    assert set(lanes(week)["Unassigned"]) == {
        day["waiting"].reference,
        day["tomorrow"].reference,
        day["next_week"].reference,
    }
    assert day["cancelled"].reference not in week


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("+43 660 123", ["waiting"]),
        ("Imperial", ["driven"]),
        ("schönbrunn", ["driven"]),
        ("anna@example", ["waiting"]),
        ("Hauptbahnhof", ["tomorrow"]),
        ("Berger Sacher", ["waiting"]),
    ],
)
def test_the_search_covers_reference_name_email_phone_from_and_to(admin_client, day, query, expected):
    html = admin_client.get(BOARD, {"range": "next7", "q": query}).content.decode()
    assert sorted(re.findall(r"CB-[A-Z0-9]{6}", html)) == sorted(day[name].reference for name in expected)
    by_reference = admin_client.get(
        BOARD, {"range": "next7", "q": day["driven"].reference.lower()}
    ).content.decode()
    assert re.findall(r"CB-[A-Z0-9]{6}", by_reference) == [day["driven"].reference]


def test_the_csv_export_is_the_filtered_list(admin_client, day):
    response = admin_client.get(EXPORT, {"range": "today", "q": "+43"})
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert re.fullmatch(
        r'attachment; filename="rides-today-\d{8}-\d{4}\.csv"', response["Content-Disposition"]
    )
    text = response.content.decode("utf-8")
    assert text.startswith("\ufeff")
    header, *rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=";"))
    assert header[:4] == ["reference", "state", "pickup", "until"]
    assert header[-3:] == ["price EUR", "payment", "ride state"]  # the ride state last
    assert [row[0] for row in rows] == [day["driven"].reference, day["waiting"].reference]  # by pickup time
    driven = dict(zip(header, rows[0], strict=True))
    assert driven["pickup"] == at(0, 23, 0).strftime("%d.%m.%Y 23:00") and driven["until"].endswith("23:24")
    assert (driven["driver"], driven["vehicle"], driven["to"], driven["price EUR"]) == (
        "Karl Huber",
        "W-1000A",
        "Schönbrunn",
        "74.00",
    )
    assert driven["ride state"] == "not accepted yet" and rows[1][-1] == ""  # nobody drives the other yet


def test_the_board_is_for_staff_only(client, day):
    assert client.get(BOARD).status_code == 302  # to the sign-in page
    plain = User.objects.create_user("max", password="pw", is_staff=True)  # staff, no booking permission
    client.force_login(plain)
    assert client.get(BOARD).status_code == 403 and client.get(EXPORT).status_code == 403


def test_the_list_filters_tomorrow_and_searches_phone_from_and_to(admin_client, day):
    tomorrow = admin_client.get(LIST, {"pickup": "tomorrow"}).content.decode()
    assert set(re.findall(r"CB-[A-Z0-9]{6}", tomorrow)) == {day["tomorrow"].reference}
    for query, name in (("+43 660 123", "waiting"), ("Imperial", "driven"), ("Hauptbahnhof", "tomorrow")):
        found = admin_client.get(LIST, {"q": query}).content.decode()
        assert set(re.findall(r"CB-[A-Z0-9]{6}", found)) == {day[name].reference}, query
    listing = admin_client.get(LIST).content.decode()
    assert 'id="dispatch-board"' in listing and 'id="phone-booking"' in listing


def test_the_demo_day_fills_the_board_in_development_only(admin_client, settings):
    from django.core.management import CommandError, call_command

    settings.DEBUG = False
    with pytest.raises(CommandError):
        call_command("demo_data")
    settings.DEBUG = True
    call_command("demo_data", stdout=io.StringIO())
    html = admin_client.get(BOARD, {"range": "next7"}).content.decode()
    assert len(re.findall(r"CB-[A-Z0-9]{6}", html)) == 9
    assert len(lanes(html)["Unassigned"]) == 4 and lanes(html)["Stefan Berger"]


def test_a_paid_ride_without_a_pickup_time_is_shown_apart_until_one_is_agreed(admin_client, make_booking):
    """The contract lets REST callers leave the pickup time out: such a paid ride is on no day's lane."""
    undated = make_booking(status="paid", paid_at=timezone.now(), name="Fritz Ohnezeit", phone="+43 1 777")
    make_booking(status="pending_payment", name="Not Paid")  # nothing to dispatch yet
    html = admin_client.get("/admin/booking/booking/dispatch/").content.decode()
    section = re.search(r'<section id="undated">(.*?)</section>', html, re.S)[1]
    assert undated.reference in section and "Fritz Ohnezeit" in section and "Not Paid" not in section
    Booking.objects.filter(pk=undated.pk).update(pickup_at=at(0, 23, 45))
    html = admin_client.get("/admin/booking/booking/dispatch/").content.decode()
    assert 'id="undated"' not in html and undated.reference in lanes(html)["Unassigned"]
