"""What payments add to a booking's priced lines (pricing/lines.py): a charge after the booking (waiting
beyond what was included, the no-show fee, a price difference after a change) as a line of its own, and the
line a credit note gives back. The booking's price lines are its quote's (`Quote.priced_lines`, worded by
booking/presentation.py); these are made here because the charges are payments' records (Surcharge), and
payments may read booking while booking never reads payments."""

from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from booking.presentation import Line
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


def of_credit(refund: Refund, reason: str, corrected: Invoice) -> PricedLine:
    """What a credit note gives back, as a positive line of the kind it gives back: the charge of the
    supplementary invoice it corrects, else the ride's fare. At the corrected invoice's VAT rate."""
    charge = corrected.surcharge
    kind = CHARGE_KINDS[Surcharge.Reason(charge.reason)] if charge else LineKind.FARE
    rate = Decimal(corrected.content["vat_rate"])
    return PricedLine(kind, CreditNote.Reason(reason).value, from_cents(refund.amount_cents), rate)


def worded(line: PricedLine, label: str) -> Line:
    return Line(label, line.amount, line.kind, line.vat_rate)


def printed(line: Line) -> dict[str, str]:
    """A worded line as an issued document keeps it: its words in the document's language, its amount, and
    what it is and its VAT rate (the accountant's export books it by them)."""
    kept = {"label": line.label, "amount": str(line.amount)}
    if line.kind is not None:
        kept["kind"] = line.kind.value
    if line.vat_rate is not None:
        kept["vat_rate"] = str(line.vat_rate)
    return kept
