"""AeroDataBox (through RapidAPI): `GET /flights/number/{number}/{date}` with the date as the arrival's local
date. The key travels in a header only; every call has connect and read timeouts and is tried once (the
poller asks again later); anything unexpected becomes FlightDataUnavailable."""

import logging
from datetime import UTC, date, datetime
from urllib.parse import urlsplit

import requests

from flights.numbers import FlightNumber
from flights.providers.base import (
    CANCELLED,
    DEPARTED,
    DIVERTED,
    LANDED,
    SCHEDULED,
    FlightDataUnavailable,
    Leg,
)

logger = logging.getLogger(__name__)

TIMEOUT = (3.05, 8.0)  # connect, read (seconds)
# AeroDataBox's statuses in ours; any other ("Expected", "CheckIn", "Boarding", "Delayed", "Unknown",
# "CanceledUncertain" …) is a flight not yet in the air.
STATUSES = {
    "Departed": DEPARTED,
    "EnRoute": DEPARTED,
    "Approaching": DEPARTED,
    "Arrived": LANDED,
    "Canceled": CANCELLED,
    "Diverted": DIVERTED,
}


class AeroDataBoxProvider:
    tracks = True

    def __init__(self, *, api_key: str, url: str, session: requests.Session | None = None):
        self.api_key = api_key
        self.url = url.rstrip("/")
        self.session = session or requests.Session()

    def legs(self, number: FlightNumber, day: date) -> list[Leg]:
        url = f"{self.url}/flights/number/{number}/{day.isoformat()}"
        headers = {"X-RapidAPI-Key": self.api_key, "X-RapidAPI-Host": urlsplit(self.url).netloc}
        params = {"dateLocalRole": "Arrival", "withAircraftImage": "false", "withLocation": "false"}
        try:
            response = self.session.get(url, params=params, headers=headers, timeout=TIMEOUT)
        except requests.RequestException as error:
            raise FlightDataUnavailable(f"AeroDataBox did not answer: {type(error).__name__}") from error
        if response.status_code in (204, 404):  # no such flight that day
            return []
        if response.status_code != 200:
            raise FlightDataUnavailable(f"AeroDataBox answered {response.status_code}")
        try:
            return [_leg(flight) for flight in response.json()]
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            logger.warning("AeroDataBox answered what we cannot read: %r", response.text[:300])
            raise FlightDataUnavailable("AeroDataBox answered what we cannot read") from error


def _leg(flight: dict) -> Leg:
    departure, arrival = flight.get("departure") or {}, flight["arrival"]
    status = STATUSES.get(flight.get("status", ""), SCHEDULED)
    scheduled = _time(arrival, "scheduledTime")
    revised = _time(arrival, "revisedTime") or _time(arrival, "predictedTime")
    landed = (revised or _time(arrival, "runwayTime") or scheduled) if status == LANDED else None
    return Leg(
        status=status,
        origin_airport=(departure.get("airport") or {}).get("iata") or "",
        origin_country=(departure.get("airport") or {}).get("countryCode") or "",
        arrival_airport=(arrival.get("airport") or {}).get("iata") or "",
        scheduled_landing=scheduled,
        estimated_landing=None if status == LANDED else revised,
        actual_landing=landed,
    )


def _time(movement: dict, name: str) -> datetime | None:
    """AeroDataBox writes UTC as "2026-12-05 08:30Z"."""
    written = (movement.get(name) or {}).get("utc")
    if not written:
        return None
    return datetime.strptime(written, "%Y-%m-%d %H:%MZ").replace(tzinfo=UTC)
