"""The bookings and the small fleet of the booking and dispatch tests."""

from tests.booking.conftest import make_booking  # noqa: F401
from tests.dispatch.conftest import fleet  # noqa: F401
