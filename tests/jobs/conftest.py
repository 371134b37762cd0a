"""The jobs tests use the bookings of tests/booking."""

from tests.booking.conftest import make_booking  # noqa: F401
