"""The daily budget of calls to the flight-data provider, counted per day in Europe/Vienna in the shared
cache so all workers spend one budget; staff set it in the admin (FlightBudget)."""

import logging

from django.utils import timezone

from flights.models import DEFAULT_DAILY_CALLS, FlightBudget
from sitekit import daily_counts

logger = logging.getLogger(__name__)

COUNTER = "flights:budget"
# Checks at booking (a form anyone may send) may spend this share of the day, counted on their own too; the
# rest stays for the flights followed, so a stream of checkouts cannot stop pickups from following their
# flights.
AT_BOOKING_SHARE = 0.5
CHECKS_COUNTER = "flights:budget:checks"


def daily_limit() -> int | None:
    record = FlightBudget.objects.first()
    return DEFAULT_DAILY_CALLS if record is None else record.daily_calls


def spend(*, at_booking: bool = False) -> bool:
    """Count one call about to be sent: True to send it, False when today's budget is spent (then send
    none; `at_booking`: its share for checks at booking, and a refused check counts nothing). Without the
    shared cache nothing can be counted, and nothing is sent: unlike a traveller's address, a flight is
    asked again a few minutes later."""
    limit = daily_limit()
    if at_booking and limit is not None:
        checks = daily_counts.counted_today(CHECKS_COUNTER)
        if checks is None or checks >= int(limit * AT_BOOKING_SHARE):
            return False
    try:
        used = daily_counts.count(COUNTER)
        if at_booking:
            daily_counts.count(CHECKS_COUNTER)
    except Exception:
        logger.warning("Flight data budget not counted: the shared cache does not answer", exc_info=True)
        return False
    if limit is None or used <= limit:
        return True
    if daily_counts.first_today(COUNTER):
        logger.error(
            "Flight data budget spent: %s calls today (%s); flights are followed again after midnight "
            "Europe/Vienna. Staff set the budget at /admin/flights/flightbudget/.",
            limit,
            timezone.localdate().isoformat(),
        )
    return False


def used_today() -> int | None:
    """The calls counted today (refused ones included); None when the shared cache does not answer."""
    return daily_counts.counted_today(COUNTER)
