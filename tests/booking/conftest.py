from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from booking.checkout import new_reference
from booking.models import Booking
from pricing.money import to_cents
from pricing.services import quote_price


@pytest.fixture
def make_booking(db):
    """A stored booking priced by the seeded tariffs (Hotel Sacher → the airport, 21.8 km: 74 EUR);
    keyword arguments replace any field. One made with `paid_at` has received its price."""

    def make(**fields) -> Booking:
        quote = quote_price(
            vehicle_class=fields.get("vehicle_class", "executive"), distance_km=Decimal("21.8")
        )
        values = {
            "reference": new_reference(),
            "origin": "Hotel Sacher",
            "destination": "Flughafen Wien",
            "vehicle_class": quote.vehicle_class,
            "quote_record": quote.as_record(),
            "amount_cents": to_cents(quote.price),
            "booking_data": {},
            "payment_provider": "sandbox",
        }
        if fields.get("paid_at"):
            values["received_cents"] = values["amount_cents"]
        return Booking.objects.create(**{**values, **fields})

    return make


def paid_ride() -> dict:
    """The fields of a ride paid in the sandbox three days ahead, with its route, for `make_booking`."""
    return {
        "status": "paid",
        "paid_at": timezone.now(),
        "payment_intent_id": "sbx_pi_1",
        "duration_s": 1455,
        "distance_km": Decimal("21.8"),
        "in_zone_a": True,
        "name": "Anna Berger",
        "email": "anna@example.com",
        "phone": "+43 660 1234567",
        "pickup_at": (timezone.now() + timedelta(days=3)).replace(microsecond=0),
    }
