"""The booking fixture of tests/booking/conftest.py, a small fleet with paid rides to assign, and a transfer an
agent booked and paid at a fake Stripe, for the tests of this app."""

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from booking.models import Booking, BookingStatus
from dispatch import assignment
from fleet.models import Driver, Vehicle
from pricing.models import VehicleClass
from tests.booking.conftest import make_booking  # noqa: F401
from tests.booking.test_checkout import post, server_amount
from tests.booking.test_checkout import ride as ride_data
from tests.payments import fake_stripe


@pytest.fixture
def stripe(settings):
    with fake_stripe.installed(settings) as books:
        yield books


@pytest.fixture
def paid(client, agent, stripe) -> Booking:
    """A business-van transfer (93.00 EUR) booked by the agent's token and paid at Stripe."""
    data = ride_data(vehicleClass="business-van")
    answer = post(
        client, "/api/v1/checkout", {"amount": server_amount(client, data), "bookingData": data}, **agent
    )
    assert answer.status_code == 201, answer.content
    (session,) = stripe.sessions.values()
    stripe.pay(client, session.id)
    return Booking.objects.get(reference=answer.json()["reference"])


@pytest.fixture
def fleet(db):
    def vehicle(plate: str, code: str) -> Vehicle:
        return Vehicle.objects.create(
            plate=plate,
            vehicle_class=VehicleClass.objects.get(code=code),
            model="E-Class",
            seats=3,
            luggage=3,
        )

    def driver(name: str, phone: str, email: str, languages: str) -> Driver:
        return Driver.objects.create(name=name, phone=phone, email=email, languages=languages)

    return {
        "karl": driver("Karl Huber", "+43 660 1112223", "karl@chauffeur.test", "de, en"),
        "mira": driver("Mira Novak", "+43 660 4445556", "mira@chauffeur.test", "en"),
        "sedan": vehicle("W-1000A", "executive"),
        "sedan2": vehicle("W-2000B", "executive"),
        "van": vehicle("W-3000C", "business-van"),
    }


@pytest.fixture
def ride(make_booking):  # noqa: F811 (the fixture imported above)
    """A paid executive ride of 1455 s (Hotel Sacher → the airport) at `pickup` (default in two days)."""

    def make(pickup: datetime | None = None, **fields) -> Booking:
        values = {
            "status": BookingStatus.PAID,
            "paid_at": timezone.now(),
            "duration_s": 1455,
            "name": "Anna Berger",
            "email": "anna@example.com",
            "phone": "+43 1 234",
            "pickup_at": pickup or (timezone.now() + timedelta(days=2)).replace(microsecond=0),
        }
        return make_booking(**{**values, **fields})

    return make


def assign(booking, driver, vehicle):
    return assignment.assign(booking.pk, driver_id=driver.pk, vehicle_id=vehicle.pk, actor="eva (staff)")
