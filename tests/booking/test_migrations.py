"""Bookings stored before the quote record existed keep their price, to the cent, line by line."""

from decimal import Decimal

import pytest

from booking.models import Booking
from tests.migrating import migrate, migrate_to_latest

OLD_PRICE = {
    "priceEur": "74.00",
    "currency": "EUR",
    "netEur": "67.27",
    "vatEur": "6.73",
    "vatRate": 0.1,
    "vehicleClass": "executive",
    "bookingType": "distance",
    "lines": [
        {"code": "base_fare", "label": "Base fare", "amountEur": "30.00"},
        {"code": "distance", "label": "Distance 21.8 km (21.8 km × 2.00 EUR)", "amountEur": "43.60"},
        {"code": "rounding", "label": "Rounded up to 1.00 EUR", "amountEur": "0.40"},
    ],
}


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_stored_price_becomes_a_quote_record_without_losing_a_cent():
    old_apps = migrate([("booking", "0003_booking_processedpaymentevent")])
    try:
        old_apps.get_model("booking", "Booking").objects.create(
            reference="CB-ACDEFG",
            origin="Hotel Sacher",
            destination="Flughafen Wien",
            vehicle_class="executive",
            price=OLD_PRICE,
            amount_cents=7400,
            booking_data={},
            payment_provider="sandbox",
            status="paid",
        )
    finally:
        migrate_to_latest()

    quote = Booking.objects.get(reference="CB-ACDEFG").quote
    assert (quote.price, quote.net, quote.vat, quote.vat_rate) == (
        Decimal("74.00"),
        Decimal("67.27"),
        Decimal("6.73"),
        Decimal("0.100"),
    )
    assert (quote.vehicle_class, quote.booking_type, quote.currency) == ("executive", "distance", "EUR")
    assert [(line.code, line.amount) for line in quote.lines] == [
        ("base_fare", Decimal("30.00")),
        ("distance", Decimal("43.60")),
        ("rounding", Decimal("0.40")),
    ]
    assert sum(line.amount for line in quote.lines) == quote.price
