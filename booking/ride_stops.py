"""Stops on the way of a ride: each an address and the minutes the car waits there. The route runs through
them in order, by their addresses as every door quotes them (places), each is a line of the price
(pricing), and the booking keeps them as the traveller gave them (Booking.stops)."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from booking.models import Booking
from places.providers.base import Endpoint

MAX_STOP_ADDRESS = 500  # characters, as the ride's own addresses
# A query gives the stops as one text separated by "|", and navigation links join them with it.
SEPARATOR = "|"


@dataclass(frozen=True)
class Stop:
    address: str
    wait_minutes: int = 0

    def as_record(self) -> dict:
        return {"address": self.address, "wait_minutes": self.wait_minutes}


def of(booking: Booking) -> tuple[Stop, ...]:
    return tuple(Stop(stop["address"], int(stop.get("wait_minutes", 0))) for stop in booking.stops or ())


def records(stops: Iterable[Stop]) -> list[dict]:
    return [stop.as_record() for stop in stops]


def endpoints(stops: Sequence[Stop]) -> tuple[Endpoint, ...]:
    """Where the route stops, as the places provider reads them."""
    return tuple(Endpoint(stop.address) for stop in stops)


def waits(stops: Sequence[Stop]) -> tuple[int, ...]:
    """The minutes planned at each stop, as the price reads them."""
    return tuple(stop.wait_minutes for stop in stops)


def stopping(stops: Sequence[Stop]) -> timedelta:
    """The time the car stands at the stops: the arrival is that much later."""
    return timedelta(minutes=sum(waits(stops)))
