"""What payments add to a booking's priced lines (pricing/lines.py): a charge after the booking (waiting
beyond what was included, the no-show fee, a price difference after a change) as a line of its own, and the
line a credit note gives back. The booking's price lines are its quote's (`Quote.priced_lines`, worded by
booking/presentation.py); these are made here because the charges are payments' records (Surcharge), and
payments may read booking while booking never reads payments."""

from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from invoicing import invoices
from invoicing.models import CreditNote, Invoice
from payments.models import Refund, Surcharge
from pricing.lines import LineKind, PricedLine
from pricing.money import from_cents

CHARGE_KINDS = {
    Surcharge.Reason.CHANGE: LineKind.ADJUSTMENT,
    Surcharge.Reason.WAITING: LineKind.WAITING,
    Surcharge.Reason.NO_SHOW: LineKind.NO_SHOW_FEE,
}
# A charge as its supplementary invoice words it, by the line's text key (the charge's reason).
CHARGE_LABELS = {
    Surcharge.Reason.CHANGE: _("Price difference after a change of the ride"),
    Surcharge.Reason.WAITING: _("Waiting time beyond what was included"),
    Surcharge.Reason.NO_SHOW: _("No-show fee"),
}
# A credit note's line, by the line's text key (the credit note's reason).
CREDIT_LABELS = {
    CreditNote.Reason.CANCELLATION: _("Cancellation: refund of what the cancellation fee does not keep"),
    CreditNote.Reason.PRICE_CHANGE: _("Price change of the ride: refund of the difference"),
    CreditNote.Reason.REFUND: _("Refund"),
}


def of_charge(surcharge: Surcharge, vat_rate: Decimal) -> PricedLine:
    """A charge as a line, at the VAT rate of the ride it is charged for."""
    reason = Surcharge.Reason(surcharge.reason)
    return PricedLine(CHARGE_KINDS[reason], reason.value, from_cents(surcharge.amount_cents), vat_rate)


def charge(surcharge: Surcharge) -> invoices.Charge:
    """A paid charge as its supplementary invoice prints it (invoicing reads no payments' rows)."""
    reason = Surcharge.Reason(surcharge.reason)
    price_change = reason == Surcharge.Reason.CHANGE
    return invoices.Charge(
        id=surcharge.pk,
        code=reason.value,
        kind=CHARGE_KINDS[reason],
        label=CHARGE_LABELS[reason],
        amount_cents=surcharge.amount_cents,
        currency=surcharge.currency,
        paid_at=surcharge.paid_at,
        price_change=price_change,
        reason_by_hand=surcharge.details.get(invoices.PRICE_BY_HAND_REASON) if price_change else None,
    )


def of_credit(refund: Refund, reason: str, corrected: Invoice) -> PricedLine:
    """What a credit note gives back, as a positive line of the kind it gives back: the charge of the
    supplementary invoice it corrects, else the ride's fare. At the corrected invoice's VAT rate."""
    charge = corrected.surcharge
    kind = CHARGE_KINDS[Surcharge.Reason(charge.reason)] if charge else LineKind.FARE
    rate = Decimal(corrected.content["vat_rate"])
    return PricedLine(kind, CreditNote.Reason(reason).value, from_cents(refund.amount_cents), rate)
