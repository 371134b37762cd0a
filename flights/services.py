"""Flights as the rest of the code asks about them: the provider configured (AeroDataBox with a key, else
the offline one that tracks nothing), a flight's legs on a day within the daily budget, and the check of a
flight number at booking."""

import logging
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import cache

from django.conf import settings
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from flights import budget, numbers
from flights.providers.base import FlightDataUnavailable, FlightProvider, Leg
from sitekit import tolerant_cache

logger = logging.getLogger(__name__)

CHECK_CACHE_SECONDS = 600  # a traveller correcting the form asks again about the same flight
# After the provider failed a booking's check, bookings are not checked for this long: each would wait the
# provider's timeouts in vain.
CHECKS_PAUSED_SECONDS = 60
CHECKS_PAUSED = "flights:check:paused"
SMALL_HOURS_END = time(4, 0)


def provider() -> FlightProvider:
    return _provider(settings.AERODATABOX_API_KEY, settings.AERODATABOX_URL)


@cache
def _provider(api_key: str, url: str) -> FlightProvider:
    if api_key:
        from flights.providers.aerodatabox import AeroDataBoxProvider

        return AeroDataBoxProvider(api_key=api_key, url=url)
    from flights.providers.offline import OfflineProvider

    return OfflineProvider()


def tracking() -> bool:
    return provider().tracks


def legs(number: numbers.FlightNumber, day: date, *, at_booking: bool = False) -> list[Leg] | None:
    """The legs of `number` landing on `day`; None when not asked (no provider, or today's budget spent:
    `at_booking`, its share for checks at booking). Raises FlightDataUnavailable."""
    source = provider()
    if not source.tracks or not budget.spend(at_booking=at_booking):
        return None
    return source.legs(number, day)


@dataclass(frozen=True)
class Refusal:
    """Why a flight number is not taken, in the traveller's words."""

    words: object


def days_of(pickup: datetime) -> list[date]:
    """The days a flight met at `pickup` may land (its arrival's local date): the pickup's, and the day
    before for a pickup in the small hours (a landing at 23:45 met at 00:15)."""
    local = timezone.localtime(pickup)
    return [local.date(), *([local.date() - timedelta(days=1)] if local.time() < SMALL_HOURS_END else [])]


def legs_around(
    number: numbers.FlightNumber, pickup: datetime, *, at_booking: bool = False
) -> list[Leg] | None:
    """The legs of `number` that a pickup at `pickup` may meet, of every day it may land (days_of: a daily
    evening flight lands on both); None when not asked. Raises FlightDataUnavailable."""
    found: list[Leg] = []
    for day in days_of(pickup):
        on_the_day = legs(number, day, at_booking=at_booking)
        if on_the_day is None:
            return None
        found += on_the_day
    return found


def check(text: str, *, pickup: datetime, airport: str | None) -> Refusal | None:
    """The flight an airport pickup meets, at booking: written as a flight number or an aircraft's
    registration, and (with a provider that answers) landing at `airport` (an IATA code; None: any) when
    the pickup may meet it. Without a provider, an answer or budget, only its form is checked."""
    if numbers.is_registration(text):
        return None
    number = numbers.parse(text)
    if number is None:
        return Refusal(numbers.MALFORMED)
    days = days_of(pickup)
    key = f"flights:check:{number}:" + ",".join(day.isoformat() for day in days)
    found = tolerant_cache.read(key, what="flight checks")
    if found is None:
        if tolerant_cache.read(CHECKS_PAUSED, what="flight checks"):
            return None
        try:
            found = legs_around(number, pickup, at_booking=True)
        except FlightDataUnavailable:
            logger.warning("Flight %s not checked: the flight-data provider does not answer", number)
            tolerant_cache.keep(CHECKS_PAUSED, True, CHECKS_PAUSED_SECONDS, what="flight checks")
            return None
        if found is None:
            return None
        tolerant_cache.keep(key, found, CHECK_CACHE_SECONDS, what="flight checks")
    if not found:
        return Refusal(
            format_lazy(
                _("No flight {number} lands on {day}: check the flight number and the pickup date."),
                number=number,
                day=timezone.localdate(pickup).strftime("%d.%m.%Y"),
            )
        )
    landing_at = sorted({leg.arrival_airport for leg in found if leg.arrival_airport})
    if airport and landing_at and airport not in landing_at:
        return Refusal(
            format_lazy(
                _("Flight {number} lands at {airports} that day, not at the pickup's airport ({airport})."),
                number=number,
                airports=", ".join(landing_at),
                airport=airport,
            )
        )
    return None
