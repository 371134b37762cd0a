"""The booking fixture of tests/booking/conftest.py."""

from tests.booking.conftest import make_booking  # noqa: F401
