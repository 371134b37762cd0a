from datetime import date

from flights.numbers import FlightNumber
from flights.providers.base import Leg


class OfflineProvider:
    """The default: tracks no flight. Pickups stay at their booked time and the pages say the flight is not
    followed."""

    tracks = False

    def legs(self, number: FlightNumber, day: date) -> list[Leg]:
        return []
