"""`manage.py demo_data` on a development database: it says what it made, and running it again makes only
what is missing (nothing, or the rides someone deleted) instead of failing on the drivers' own rides."""

import io
import sqlite3
from datetime import datetime, time, timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from booking.models import Booking, BookingStatus
from fleet.models import Driver, Vehicle
from payments.models import PaymentShare
from pricing.models import VehicleClass
from tests.processes import manage, migrated_sqlite

pytestmark = pytest.mark.django_db

FIRST_RUN = "Made 3 drivers, 4 vehicles, 9 rides, 1 quote request."
SECOND_RUN = (
    "Nothing to make: the demo data is already there (3 drivers, 4 vehicles, 9 rides, 1 quote request)."
)


def demo_data() -> str:
    said = io.StringIO()
    call_command("demo_data", stdout=said)
    return said.getvalue().strip()


def stored() -> dict:
    return {
        "drivers": Driver.objects.count(),
        "vehicles": Vehicle.objects.count(),
        "rides": sorted(Booking.objects.values_list("reference", "status", "driver_id", "vehicle_id")),
    }


@pytest.fixture
def debug(settings):
    settings.DEBUG = True


def test_run_twice_in_a_fresh_process_it_exits_0_and_the_second_run_makes_nothing(tmp_path):
    database = tmp_path / "db.sqlite3"
    env = {"DJANGO_DEBUG": "true", "DATABASE_URL": f"sqlite:///{database}"}
    migrated_sqlite(database)
    runs = [manage("demo_data", **env) for _ in range(2)]
    assert [(run.returncode, run.stdout.strip(), run.stderr) for run in runs] == [
        (0, FIRST_RUN, ""),
        (0, SECOND_RUN, ""),
    ]
    with sqlite3.connect(database) as rows:
        assert rows.execute("SELECT count(*) FROM booking_booking").fetchone() == (9,)


def test_a_second_run_changes_nothing(debug):
    assert demo_data() == FIRST_RUN
    before = stored()
    assert demo_data() == SECOND_RUN
    assert stored() == before


def test_a_second_run_makes_only_what_was_deleted(debug):
    demo_data()
    clara = Booking.objects.get(name="Clara Weiss")
    with connection.cursor() as cursor:  # an issued invoice is never deleted: only behind the ORM's back
        cursor.execute("DELETE FROM payments_invoice WHERE booking_id = %s", [clara.pk])
    for share in PaymentShare.objects.filter(booking=clara):  # its money rows go with it
        share.delete()
        share.payment.delete()
    clara.delete()
    Vehicle.objects.filter(plate="W-1002B").delete()  # on no ride: its demo ride waits for a driver
    kept = set(Booking.objects.values_list("reference", flat=True))
    assert demo_data() == "Made 1 vehicle, 1 ride."
    clara = Booking.objects.get(name="Clara Weiss")
    assert (clara.status, str(clara.driver)) == (BookingStatus.CONFIRMED, "Karl Huber")
    assert set(Booking.objects.values_list("reference", flat=True)) == kept | {clara.reference}
    assert (Driver.objects.count(), Vehicle.objects.count()) == (3, 4)


def test_a_driver_busy_with_a_ride_entered_by_hand_leaves_the_demo_ride_for_dispatch(debug, make_booking):
    karl = Driver.objects.create(name="Karl Huber", phone="+43 660 1112223")
    own_car = Vehicle.objects.create(
        plate="W-9999Z", vehicle_class=VehicleClass.objects.get(code="executive"), seats=3, luggage=3
    )
    pickup = datetime.combine(timezone.localdate(), time(8, 15), tzinfo=timezone.get_default_timezone())
    by_hand = make_booking(
        status=BookingStatus.CONFIRMED,
        paid_at=timezone.now(),
        pickup_at=pickup,
        duration_s=3600,
        driver=karl,
        vehicle=own_car,
        name="Walk-in",
    )
    said = demo_data().splitlines()
    anna = Booking.objects.get(name="Anna Berger", pickup_at=pickup + timedelta(minutes=15))
    assert said[0].startswith(f"{anna.reference} is left for dispatch: Karl Huber is on {by_hand.reference}")
    assert said[1:] == ["Made 2 drivers, 4 vehicles, 9 rides, 1 quote request."]
    assert (anna.status, anna.driver) == (BookingStatus.PAID, None)
    assert Booking.objects.filter(driver=karl).count() == 2  # the hand-made ride and the evening's demo ride
    by_hand.refresh_from_db()
    assert (by_hand.status, by_hand.driver, by_hand.vehicle) == (BookingStatus.CONFIRMED, karl, own_car)
