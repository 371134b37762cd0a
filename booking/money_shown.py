"""What booking's own texts show of the money payments holds: a refund's state and a price difference's
reason in the history, the invoice and credit notes a mail carries, what a cancellation gave back and why
an amount is owed. Booking imports nothing of payments (docs/development/layout.md, "Money and bookings"):
it says here what it reads, and payments supplies it when its app is ready (payments/shown.py). Only
words and documents pass this way; whatever moves money or a booking is a use case in payments."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from booking.models import Booking


@dataclass(frozen=True)
class Document:
    """An invoice or credit note as a mail carries it: its number for the text, its files when attached."""

    number: str
    # (file name, content, media type): the PDF, then the e-invoice a company asked for; made only for
    # the copy that carries them
    files: Callable[[], list[tuple[str, bytes, str]]]


class MoneyShown(Protocol):
    def refund_state(self, code: str) -> str:
        """A refund's state in the active language."""
        ...

    def surcharge_reason(self, code: str) -> str:
        """Why a price difference is owed, in the active language ("waiting time")."""
        ...

    def invoice(self, booking: Booking) -> Document | None:
        """The ride's own invoice, once issued."""
        ...

    def cancellation_credit_notes(self, booking: Booking) -> list[Document]:
        """The credit notes of the cancellation's refund done at once, oldest first."""
        ...

    def given_back_cents(self, booking: Booking) -> int:
        """What went back or is on its way back to the customer."""
        ...

    def owed_because(self, booking: Booking, surcharge_id: int) -> str:
        """Why the booking's amount `surcharge_id` is owed, in the active language; empty for none."""
        ...


_supplied: list[MoneyShown] = []


def supplied_by(shown: MoneyShown) -> None:
    _supplied[:] = [shown]


def money_shown() -> MoneyShown:
    if not _supplied:
        raise RuntimeError("payments supplies what booking shows of money once its app is ready")
    return _supplied[0]
