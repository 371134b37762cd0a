"""Credit notes (UStG §11 (12); docs/operations/invoices.md): issued when money is really given back, in the
transaction that records it: a refund that becomes SUCCEEDED (the provider's news, a refund by staff, an
owed refund confirmed as paid back). payments/refunds.py calls `issue_for` at every such place, handing over
what the credit note prints of the refund (`Credit`): this app reads no payments' rows.

A credit note names the invoice it corrects: the supplementary invoice of the price difference whose
payment the refund went back to, else the booking's ride invoice. Numbers "G-2026-000001": their own
gapless series per year (invoicing/numbering.py). A refund has at most one credit note (a replayed refund
event finds it)."""

import logging
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from booking.models import Booking, BookingStatus, PaymentMethod
from invoicing import cross_border, documents, invoices, mails, numbering, printed_lines
from invoicing.models import CreditNote, CreditNoteYear, Invoice
from operator_profile.models import PROFILE_ID, OperatorProfile
from pricing.lines import LineKind, PricedLine
from pricing.money import from_cents

logger = logging.getLogger(__name__)
NUMBER_FORMAT = "G-{year}-{sequence:06d}"
# A credit note's line, by the line's text key (the credit note's reason).
CREDIT_LABELS = {
    CreditNote.Reason.CANCELLATION: _("Cancellation: refund of what the cancellation fee does not keep"),
    CreditNote.Reason.PRICE_CHANGE: _("Price change of the ride: refund of the difference"),
    CreditNote.Reason.REFUND: _("Refund"),
}


@dataclass(frozen=True)
class Credit:
    """Money given back, done, as its credit note prints it: payments' refund (Refund `id`)."""

    id: int
    booking: Booking  # the row the caller's transaction holds
    amount_cents: int
    currency: str
    done_at: datetime  # a credit note that waits for the seller's details is found again from then
    # what it gives back: the charge it went back to (its Surcharge `id` and line kind), else the ride's fare
    charge_id: int | None = None
    kind: LineKind = LineKind.FARE
    # a price difference after a change prints the reason staff gave for a price set by hand
    price_change: bool = False
    reason_by_hand: str | None = None
    mailed: bool = True  # False: it rides with the cancellation's own e-mail instead


def issue_for(credit: Credit) -> CreditNote | None:
    """The credit note of a refund that is done (SUCCEEDED): issued now in the caller's transaction, or the
    one it has. None while the refund is not done, while the booking's documents wait for the seller's legal
    details, and for money never invoiced: a booking on a company account, one paid before invoices
    existed, money through a withdrawn payment link given back.
    The traveller gets it by e-mail unless it rides with the cancellation's own (`Credit.mailed`)."""
    if not transaction.get_connection().in_atomic_block:
        raise transaction.TransactionManagementError("a credit note is issued in the refund's transaction")
    existing = CreditNote.objects.filter(refund_id=credit.id).first()
    if existing is not None:
        return existing
    booking = credit.booking
    if booking.payment_method == PaymentMethod.ACCOUNT:
        return None  # on the company's collective invoice, corrected there
    if invoices.waits(booking):  # issued with the invoices it corrects (payments/waiting_documents.py)
        invoices.hold(booking, since=credit.done_at)  # waiting_documents finds refunds from then on
        logger.debug("%s: its credit note waits for the seller's legal details", booking.reference)
        return None
    corrected = corrected_invoice(credit)
    if corrected is None:
        return None
    issued_at = timezone.now()
    year = timezone.localtime(issued_at).year
    sequence = numbering.next_number(CreditNoteYear, year)
    number = NUMBER_FORMAT.format(year=year, sequence=sequence)
    reason = reason_of(credit, booking)
    invoiced = documents.part_of(corrected, booking)  # a trip invoice's part for this ride
    rate = Decimal(invoiced["vat_rate"])
    border, net_cents, vat_cents = cross_border.portion(
        invoiced.get("cross_border"), credit.amount_cents, rate
    )
    language = corrected.language
    note = CreditNote.objects.create(
        number=number,
        year=year,
        sequence=sequence,
        invoice=corrected,
        booking=booking,
        refund_id=credit.id,
        reason=reason,
        issued_at=issued_at,
        language=language,
        net_cents=net_cents,
        vat_cents=vat_cents,
        gross_cents=credit.amount_cents,
        currency=credit.currency,
        content=_snapshot(
            booking,
            corrected,
            credit,
            reason,
            number=number,
            issued_at=issued_at,
            net_cents=net_cents,
            vat_cents=vat_cents,
            border=border,
        ),
    )
    if credit.mailed:
        mails.send_credit_note.enqueue(note.pk)  # the traveller's copy, after the commit
    mails.copy_to_company(note)
    return note


def corrected_invoice(credit: Credit) -> Invoice | None:
    """The invoice a refund corrects: the supplementary invoice of the price difference paid with the
    payment it went back to, else the booking's ride invoice. None (logged) when that money was never
    invoiced."""
    booking = credit.booking
    # Money that went back to a provider payment corrects what that payment paid for.
    if credit.charge_id is not None:
        invoice = Invoice.objects.filter(surcharge_id=credit.charge_id).first()
        if invoice is None:
            logger.info(
                "Refund %s of %s went back to a payment never invoiced (a withdrawn link): no credit note",
                credit.id,
                booking.reference,
            )
        return invoice
    invoice = documents.for_booking(booking)
    if invoice is None:
        logger.warning(
            "Refund %s of %s: the booking has no invoice (paid before invoices): no credit note",
            credit.id,
            booking.reference,
        )
    return invoice


def reason_of(credit: Credit, booking: Booking) -> str:
    if credit.price_change:
        return CreditNote.Reason.PRICE_CHANGE
    if booking.status == BookingStatus.CANCELLED:
        return CreditNote.Reason.CANCELLATION
    return CreditNote.Reason.REFUND


def _snapshot(
    booking: Booking,
    corrected: Invoice,
    credit: Credit,
    reason: str,
    *,
    number: str,
    issued_at,
    net_cents: int,
    vat_cents: int,
    border: dict | None,
) -> dict:
    """Everything the credit note prints, fixed at issue, worded in the corrected invoice's language: the
    ride as the corrected invoice prints it."""
    base = documents.part_of(corrected, booking)
    line = credit_line(credit, reason, base)
    with translation.override(corrected.language):
        label = str(CREDIT_LABELS[CreditNote.Reason(line.code)])
        if reason == CreditNote.Reason.PRICE_CHANGE:
            label = invoices.with_reason_by_hand(label, booking, credit.reason_by_hand)
        reason_shown = str(CreditNote.Reason(reason).label)
    content = {"buyer": corrected.content.get("buyer")}
    content.update(
        (key, base.get(key))
        for key in ("reference", "service", "vehicle", "origin", "destination", "pickup_at")
    )
    with translation.override(corrected.language):  # the seller as it is now, its details complete
        content["seller"] = invoices.seller_details(OperatorProfile.objects.filter(id=PROFILE_ID).first())
    fee = booking.cancellation_fee_cents if reason == CreditNote.Reason.CANCELLATION else None
    content.update(
        kind="credit_note",
        number=number,
        issued_at=issued_at.isoformat(),
        language=corrected.language,
        corrects={"number": corrected.number, "issued_at": corrected.content["issued_at"]},
        reason=reason,
        reason_shown=reason_shown,
        fee_kept=str(from_cents(fee)) if fee else None,
        lines=[printed_lines.printed(printed_lines.worded(line, label))],
        net=str(from_cents(net_cents)),
        vat=str(from_cents(vat_cents)),
        vat_rate=base["vat_rate"],
        gross=str(from_cents(credit.amount_cents)),
        currency=credit.currency,
        cross_border=border,  # the corrected invoice's share of the route, the credit split as it was
    )
    return content


def credit_line(credit: Credit, reason: str, invoiced: dict) -> PricedLine:
    """What a credit note gives back, as a positive line of the kind it gives back (the charge of the
    supplementary invoice it corrects, else the ride's fare), at the VAT rate the ride was `invoiced` at."""
    rate = Decimal(invoiced["vat_rate"])
    return PricedLine(credit.kind, CreditNote.Reason(reason).value, from_cents(credit.amount_cents), rate)
