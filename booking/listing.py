"""A token's bookings, a page at a time (GET /api/v1/bookings, booking.list_bookings, put together with their
money by payments/booking_state.py): which ones are its is booking/ownership.py's to say; each is answered as
GET /api/v1/bookings/{reference} answers it.
Today's rides and later ones come soonest first (a ride under way is today's), earlier ones latest first.
Pages follow a cursor on (pickup, id), so a booking made between two pages neither repeats nor hides one;
a page costs a fixed number of queries, however many bookings it shows."""

from dataclasses import dataclass
from datetime import UTC, datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from booking.lifecycle import BookingState
from booking.models import Booking

DEFAULT_LIMIT, MAX_LIMIT = 20, 50
UPCOMING, PAST, ALL = "upcoming", "past", "all"
WHEN = (UPCOMING, PAST, ALL)
# The cursor: the last booking's pickup in microseconds since 1970 (`x`: none) and its id. Whatever
# matches it reads as a position, so a cursor is either refused by its form or leads somewhere.
CURSOR_PATTERN = r"^(?:[0-9]{1,17}|x)_[0-9]{1,18}$"
NO_PICKUP = "x"


@dataclass(frozen=True)
class BookingPage:
    bookings: list[BookingState]
    next_cursor: str | None  # None: this was the last page


@dataclass(frozen=True)
class Position:
    pickup: datetime | None
    pk: int


def start_of_today() -> datetime:
    """Midnight in Vienna (never skipped by a daylight-saving change, which happens at 2 or 3 o'clock)."""
    return timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)


def chosen(bookings: QuerySet[Booking], when: str, today: datetime) -> QuerySet[Booking]:
    if when == UPCOMING:
        return bookings.filter(Q(pickup_at__gte=today) | Q(pickup_at__isnull=True))
    if when == PAST:
        return bookings.filter(pickup_at__lt=today)
    return bookings


def after(position: Position, *, ascending: bool) -> Q:
    """The bookings after `position` in the page order (pickup, then id; no pickup last)."""
    beyond = "gt" if ascending else "lt"
    if position.pickup is None:
        return Q(pickup_at__isnull=True, **{f"pk__{beyond}": position.pk})
    return (
        Q(**{f"pickup_at__{beyond}": position.pickup})
        | Q(pickup_at=position.pickup, **{f"pk__{beyond}": position.pk})
        | Q(pickup_at__isnull=True)
    )


def cursor_of(booking: Booking) -> str:
    if booking.pickup_at is None:
        return f"{NO_PICKUP}_{booking.pk}"
    since = booking.pickup_at - datetime(1970, 1, 1, tzinfo=UTC)
    micros = (since.days * 86_400 + since.seconds) * 1_000_000 + since.microseconds
    return f"{micros}_{booking.pk}"


def parse_cursor(cursor: str) -> Position:
    """A cursor of the form CURSOR_PATTERN (the input declaration checked it)."""
    pickup, _, pk = cursor.partition("_")
    if pickup == NO_PICKUP:
        return Position(None, int(pk))
    seconds, micros = divmod(int(pickup), 1_000_000)
    return Position(datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=micros), int(pk))
