"""What payments add to a booking's priced lines (pricing/lines.py): a charge after the booking (waiting
beyond what was included, the no-show fee, a price difference after a change) as a line of its own, and the
line a credit note gives back. The booking's price lines are its quote's (`Quote.priced_lines`, worded by
booking/presentation.py); these are made here because the charges are payments' records (Surcharge), and
payments may read booking while booking never reads payments."""

from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from invoicing import credit_notes, invoices
from payments.models import CANCELLATION_REFUND, PRICE_CHANGE_REFUND, Refund, Surcharge
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


def credit(refund: Refund, *, just_made: bool = False) -> credit_notes.Credit:
    """A refund that is done as its credit note prints it (invoicing reads no payments' rows): what it gives
    back is the charge the provider payment it went back to paid, else the ride's fare. A cancellation's
    refund done at once (`just_made`) rides with the cancellation's own e-mail."""
    paid_with = refund.payment.surcharge if refund.payment and refund.payment_intent_id else None
    price_change = refund.reason == PRICE_CHANGE_REFUND
    return credit_notes.Credit(
        id=refund.pk,
        booking=refund.booking,
        amount_cents=refund.amount_cents,
        currency=refund.currency,
        done_at=refund.updated_at,
        charge_id=paid_with.pk if paid_with else None,
        kind=CHARGE_KINDS[Surcharge.Reason(paid_with.reason)] if paid_with else LineKind.FARE,
        price_change=price_change,
        reason_by_hand=refund.details.get(invoices.PRICE_BY_HAND_REASON) if price_change else None,
        mailed=not (just_made and refund.reason == CANCELLATION_REFUND),
    )
