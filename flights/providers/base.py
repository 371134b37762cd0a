"""The one interface every flight-data provider implements; the rest of the code depends on this module
only."""

from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol

from flights.numbers import FlightNumber

# What a flight says of itself, in our words (each provider maps its own).
SCHEDULED, DEPARTED, LANDED, CANCELLED, DIVERTED = "scheduled", "departed", "landed", "cancelled", "diverted"


class FlightDataUnavailable(Exception):
    """The provider is down, slow, refuses our key or answered nonsense: nothing is known, nothing changes."""


@dataclass(frozen=True)
class Leg:
    """A flight landing somewhere on one day. Times are aware (UTC as the provider gives them)."""

    status: str
    origin_airport: str  # IATA code ("" when unknown)
    origin_country: str  # ISO 3166 alpha-2 ("" when unknown)
    arrival_airport: str
    scheduled_landing: datetime | None
    estimated_landing: datetime | None = None
    actual_landing: datetime | None = None


class FlightProvider(Protocol):
    tracks: bool  # False: the offline provider, which knows no flight

    def legs(self, number: FlightNumber, day: date) -> list[Leg]:
        """The legs of `number` landing on `day` (the arrival airport's local date); [] when there are
        none. Raises FlightDataUnavailable."""
        ...
