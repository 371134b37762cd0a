"""The jobs tests use the bookings of tests/booking, and the real worker processes' fixtures."""

from tests.booking.conftest import make_booking  # noqa: F401
from tests.jobqueue.worker_processes import database, env, mail_server  # noqa: F401
