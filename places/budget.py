"""The daily budget of billable calls to the places provider (Google): suggestions and routes, each counted
per day in Europe/Vienna in the shared cache, so all workers spend one budget. Staff set the limits in the
admin (ProviderBudget); each process keeps them like the tariffs (apikit/versions.py). Only calls about to
be sent are counted: the caller asks after its own cache missed, so a cached answer costs nothing here."""

import logging
from dataclasses import dataclass

from django.db import DatabaseError
from django.utils import timezone

from apikit.versions import KeptCopy, SharedVersion
from places.models import DEFAULT_DAILY_CALLS, ProviderBudget
from sitekit import daily_counts

logger = logging.getLogger(__name__)

SUGGESTIONS, ROUTES = "suggestions", "routes"
BUDGET = SharedVersion("places-budget")


@dataclass(frozen=True)
class Limits:
    """Calls a day per kind; None: no limit."""

    suggestions: int | None = DEFAULT_DAILY_CALLS
    routes: int | None = DEFAULT_DAILY_CALLS


def _read_limits() -> Limits:
    record = ProviderBudget.objects.first()
    if record is None:
        return Limits()
    return Limits(suggestions=record.daily_suggestion_calls, routes=record.daily_route_calls)


_limits = KeptCopy(BUDGET, _read_limits)


def limits() -> Limits:
    try:
        return _limits.get()
    except DatabaseError:  # places answer without the database; the defaults bound the day meanwhile
        logger.warning("Places budget unreadable: the database does not answer; using the defaults")
        return Limits()


def spend(kind: str) -> bool:
    """Count one `kind` call about to be sent to the provider: True to send it, False when today's budget
    is spent (then send none and answer offline). Without the shared cache nothing can be counted: the
    call is sent (an outage of seconds, logged by the cache itself)."""
    limit = getattr(limits(), kind)
    try:
        used = daily_counts.count(_counter(kind))
    except Exception:
        logger.warning("Places budget not counted: the shared cache does not answer", exc_info=True)
        return True
    if limit is None or used <= limit:
        return True
    if daily_counts.first_today(_counter(kind)):  # one error line a day per kind
        logger.error(
            "Places budget spent: %s %s calls to Google today (%s); the offline provider answers them "
            "until midnight Europe/Vienna. Staff set the budget at /admin/places/providerbudget/.",
            limit,
            kind,
            timezone.localdate().isoformat(),
        )
    return False


def used_today(kind: str) -> int | None:
    """The `kind` calls counted today (refused ones included); None when the shared cache does not answer."""
    return daily_counts.counted_today(_counter(kind))


def _counter(kind: str) -> str:
    return f"places:budget:{kind}"
