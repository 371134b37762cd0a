"""The booking fixture of tests/booking/conftest.py, for the tests of this app too."""

from tests.booking.conftest import make_booking  # noqa: F401
