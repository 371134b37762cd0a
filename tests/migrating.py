"""Move the test database along the migration graph, for tests that prove a data migration keeps data."""

from decimal import Decimal

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from pricing.services import quote_price


def migrate(targets: list[tuple[str, str | None]]):
    """Migrate to `targets`; the models as they are there (historical models, for writing old rows)."""
    MigrationExecutor(connection).migrate(targets)
    loader = MigrationExecutor(connection).loader
    return loader.project_state(list(loader.applied_migrations)).apps


def migrate_to_latest() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def old_booking(old_apps, reference: str, **fields):
    """A booking written by the models as they were (Hotel Sacher → the airport, 74 EUR, checkout at
    Stripe, where that time knew a provider): `fields` replace any of its values and name the fields of
    that time."""
    values = {
        "reference": reference,
        "origin": "Hotel Sacher",
        "destination": "Flughafen Wien",
        "vehicle_class": "executive",
        "quote_record": quote_price(vehicle_class="executive", distance_km=Decimal("21.8")).as_record(),
        "amount_cents": 7400,
        "booking_data": {},
        "payment_provider": "stripe",
    }
    Booking = old_apps.get_model("booking", "Booking")
    then = {field.name for field in Booking._meta.get_fields()}
    known = {name: value for name, value in values.items() if name in then}
    return Booking.objects.create(**{**known, **fields})
