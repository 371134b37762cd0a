from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from booking.checkout import new_reference
from booking.models import Booking
from pricing.money import to_cents
from pricing.services import quote_price
from tests.payments import ledger_rows


@pytest.fixture
def make_booking(db):
    """A stored booking priced by the seeded tariffs (Hotel Sacher → the airport, 21.8 km: 74 EUR), with
    its `passengers`, `luggage`, `extras` and `stops` if given; keyword arguments replace any field. One made with `paid_at` has received its price; with
    `provider_session_id` (and `payment_provider`) it was given a payment page."""

    def make(**fields) -> Booking:
        quote = quote_price(
            vehicle_class=fields.get("vehicle_class", "executive"),
            distance_km=Decimal("21.8"),
            passengers=fields.get("passengers"),
            luggage=fields.get("luggage"),
            extras=fields.pop("extras", ()),  # ExtraChoice: lines of its price, not a field
            stop_waits=[stop.get("wait_minutes", 0) for stop in fields.get("stops", ())],
        )
        values = {
            "reference": new_reference(),
            "origin": "Hotel Sacher",
            "destination": "Flughafen Wien",
            "vehicle_class": quote.vehicle_class,
            "quote_record": quote.as_record(),
            "amount_cents": to_cents(quote.price),
            "booking_data": {},
        }
        # Money received is the ledger's: these write its row, as the code that records a payment does.
        money = {
            key: fields.pop(key)
            for key in ("received_cents", "payment_intent_id", "marked_paid_by")
            if key in fields
        }
        provider = fields.get("payment_provider", "sandbox")
        booking = ledger_rows.create_booking(**{**values, **fields})
        cents = money.get("received_cents", booking.amount_cents if booking.paid_at else 0)
        if cents:
            through = {"provider": provider} if booking.payment_method == "checkout" else {}
            ledger_rows.received(
                booking,
                cents,
                payment_intent_id=money.get("payment_intent_id", ""),
                recorded_by=money.get("marked_paid_by"),
                **through,
            )
        return booking

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
