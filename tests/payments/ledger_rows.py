"""Test set-up: a booking's payment page and the money it received, written to the ledger as
payments/checkout.py and payments/payment_updates.py record them."""

from django.db import transaction

from booking.models import Booking
from payments import account_payments, ledger
from payments.models import AccountPayment, Payment, PaymentShare, Surcharge


def create_booking(**fields) -> Booking:
    """`Booking.objects.create`, where `provider_session_id` (with `payment_provider`, else the sandbox) is
    the booking's payment page: its payment waits in the ledger."""
    session = fields.pop("provider_session_id", None)
    provider = fields.pop("payment_provider", "sandbox")
    booking = Booking.objects.create(**fields)
    if session:
        checkout_page(booking, session, provider=provider)
    return booking


def checkout_page(booking: Booking, session: str, *, provider: str = "sandbox") -> Payment:
    """The booking's payment page was opened: its payment waits for the money."""
    with transaction.atomic():
        return ledger.checkout_opened([booking], provider=provider, session_id=session)


def link_page(surcharge: Surcharge, session: str, *, provider: str = "sandbox") -> Payment:
    """A price difference's payment page was opened: its payment waits for the money."""
    with transaction.atomic():
        return ledger.link_opened(surcharge.booking, surcharge, provider=provider, session_id=session)


def without_page(booking: Booking) -> None:
    """As if the provider had failed at checkout: the booking's (unpaid) payment page was never opened."""
    page = ledger.checkout_of(booking)
    assert page is not None and page.state == Payment.State.PENDING
    page.shares.all().delete()
    page.delete()


def session_of(booking: Booking) -> str | None:
    """The provider's session of the booking's own payment page."""
    return ledger.checkout_session(booking)


def received(booking: Booking, cents: int | None = None, **payment) -> Payment:
    """The booking's own price arrived: through its checkout (its page's payment, when it has one), or taken
    by staff for any other method."""
    checkout = booking.payment_method == "checkout"
    page = ledger.checkout_of(booking) if checkout else None
    defaults = {
        "kind": Payment.Kind.CHECKOUT if checkout else Payment.Kind.STAFF,
        "provider": (page.provider if page else "sandbox") if checkout else "",
        "session_id": page.provider_session_id if page else None,
        "at": booking.paid_at,
    }
    amount = booking.amount_cents if cents is None else cents
    with transaction.atomic():  # as its writers: a waiting payment is locked
        return ledger.record_received(booking, amount, **{**defaults, **payment})


def paid_through_checkout(
    booking: Booking, session: str, intent: str, *, provider: str = "stripe"
) -> Payment:
    """A booking paid at its (fake) provider: its session and the payment intent the provider made."""
    shares = ledger.received_shares(booking)
    if shares.exists():  # made paid by the fixture: its payment was the provider's
        payment = shares.first().payment
        payment.provider, payment.provider_session_id, payment.payment_intent_id = provider, session, intent
        payment.save(update_fields=["provider", "provider_session_id", "payment_intent_id"])
        return payment
    checkout_page(booking, session, provider=provider)
    return received(booking, payment_intent_id=intent)


def received_cents(booking: Booking) -> int:
    return ledger.received_cents(booking)


def own_intent(booking: Booking) -> str:
    payment = ledger.own_payment(booking)
    return payment.payment_intent_id if payment else ""


def on_account(invoice, cents: int, day, *, note: str = "", recorded_by=None) -> AccountPayment:
    """A company's transfer as written to the ledger, without the form's checks (a set-up may record more
    than its invoice owes): a received payment on account, its shares as payments/account_payments.py
    makes them."""
    payment = Payment.objects.create(
        kind=Payment.Kind.ACCOUNT,
        state=Payment.State.RECEIVED,
        amount_cents=cents,
        recorded_by=recorded_by,
        received_at=account_payments.start_of(day),
    )
    for booking_id, piece in account_payments.shared_out(cents, account_payments.lines_owing(invoice)):
        PaymentShare.objects.create(payment=payment, booking_id=booking_id, amount_cents=piece)
    return AccountPayment.objects.create(invoice=invoice, payment=payment, note=note)
