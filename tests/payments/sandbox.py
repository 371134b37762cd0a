"""A booking paid on the sandbox's hosted page, for tests that need a paid booking (web/views.py answers
the page's Pay button with the same event)."""

from booking.models import Booking
from payments.payment_updates import apply_event
from payments.providers import payment_provider
from tests.payments import ledger_rows


def pay_in_the_sandbox(booking: Booking) -> None:
    apply_event(
        payment_provider().pay_event(
            session_id=ledger_rows.session_of(booking),
            reference=booking.reference,
            amount_cents=booking.amount_cents,
            currency=booking.currency,
        )
    )
