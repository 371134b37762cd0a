"""What a booking still owes, in its traveller's words: the open amounts (a price difference, waiting time,
a no-show fee), why each is owed and how it is paid, and the booking's state that says so
(booking/presentation.py holds the states' words)."""

from dataclasses import dataclass
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from booking.models import Booking, BookingStatus, PaymentMethod
from booking.presentation import ON_ACCOUNT_WORDS, STATUS_WORDS
from payments.models import Surcharge
from pricing.money import from_cents
from sitekit.l10n import money


def status_words(booking: Booking) -> str:
    """The booking's state in the reader's language, as a person says it: on account it never reads
    "awaiting payment" or "paid" (nothing is paid by the traveller), and an amount still open says so."""
    state = BookingStatus(booking.status)
    if booking.payment_method == PaymentMethod.ACCOUNT and state in ON_ACCOUNT_WORDS:
        return str(ON_ACCOUNT_WORDS[state])
    words = str(STATUS_WORDS[state])
    owed = sum(charge.amount for charge in still_to_pay(booking))
    if owed and state in (BookingStatus.PAID, BookingStatus.CONFIRMED, BookingStatus.COMPLETED):
        return str(_("{state}; {amount} still to pay")).format(state=words, amount=money(owed))
    return words


@dataclass(frozen=True)
class Owed:
    """An amount still open on a booking (a price difference, waiting time, a no-show fee), for its
    traveller: how much, why, and how it is paid (its payment link, else how it is settled)."""

    amount: Decimal
    what: str
    because: str
    payment_url: str
    settled: str  # how it is paid when there is no link


def still_to_pay(booking: Booking) -> list[Owed]:
    """The booking's open amounts, oldest first, in the reader's language."""
    return [
        Owed(
            charge.amount,
            _first_up(str(charge.get_reason_display())),
            owed_because(charge),
            charge.payment_url,
            "" if charge.payment_url else _settled(booking),
        )
        for charge in booking.surcharges.filter(status=Surcharge.Status.PENDING).order_by("created_at", "pk")
    ]


def owed_because(charge: Surcharge) -> str:
    """Why an amount is owed, from what was recorded with it: the prices before and after a change, the
    minutes waited, the no-show fee's terms."""
    details = charge.details or {}
    if charge.reason == Surcharge.Reason.WAITING and "waited" in details:
        return str(
            _(
                "Your chauffeur waited {waited} minutes; {included} are included in the price, {beyond} "
                "were beyond."
            )
        ).format(**{key: details[key] for key in ("waited", "included", "beyond")})
    if charge.reason == Surcharge.Reason.NO_SHOW and "fee" in details:
        return str(
            _("You did not come to the pickup: our terms charge {percent} % of the price of {price}.")
        ).format(percent=details["percent"], price=money(from_cents(details["price"])))
    if charge.reason == Surcharge.Reason.CHANGE and "price_before" in details:
        return str(
            _("Your ride was changed: its price went from {before} to {after}; {paid} was paid.")
        ).format(
            before=money(from_cents(details["price_before"])),
            after=money(from_cents(details["price_after"])),
            paid=money(from_cents(details.get("paid", 0))),
        )
    return str(REASONS_SHOWN[Surcharge.Reason(charge.reason)])


REASONS_SHOWN = {
    Surcharge.Reason.CHANGE: _("The price of your ride changed after a change to it."),
    Surcharge.Reason.WAITING: _("Waiting time beyond what the price includes."),
    Surcharge.Reason.NO_SHOW: _("The no-show fee of our terms."),
}


def _first_up(text: str) -> str:
    return text[:1].upper() + text[1:]


def _settled(booking: Booking) -> str:
    if booking.payment_method == PaymentMethod.ACCOUNT:
        return str(_("On your company's monthly invoice."))
    if booking.payment_method == PaymentMethod.INVOICE:
        return str(_("We will invoice you."))
    if booking.payment_method == PaymentMethod.CASH:
        return str(_("To be settled in cash; we will be in touch."))
    return str(_("We will send you a payment link."))
