"""Credit notes (UStG §11 (12); docs/operations/invoices.md): issued when money is really given back, in the
transaction that records it: a refund that becomes SUCCEEDED (the provider's news, a refund by staff, an
owed refund confirmed as paid back). payments/refunds.py calls `issue_for` at every such place.

A credit note names the invoice it corrects: the supplementary invoice of the price difference whose
payment the refund went back to, else the booking's ride invoice. Numbers "G-2026-000001": their own
gapless series per year (invoicing/numbering.py). A refund has at most one credit note (a replayed refund
event finds it)."""

import logging
from decimal import Decimal

from django.db import transaction
from django.utils import timezone, translation

from booking.models import Booking, BookingStatus, PaymentMethod
from invoicing import cross_border, invoices, mails, numbering, printed_lines
from invoicing.models import CreditNote, CreditNoteYear, Invoice
from operator_profile.models import PROFILE_ID, OperatorProfile
from payments import priced_lines
from payments.models import CANCELLATION_REFUND, PRICE_CHANGE_REFUND, Refund, RefundStatus
from pricing.money import from_cents

logger = logging.getLogger(__name__)
NUMBER_FORMAT = "G-{year}-{sequence:06d}"


def issue_for(refund: Refund, *, just_made: bool = False) -> CreditNote | None:
    """The credit note of a refund that is done (SUCCEEDED): issued now in the caller's transaction, or the
    one it has. None while the refund is not done, while the booking's documents wait for the seller's legal
    details, and for money never invoiced: a booking on a company account, one paid before invoices
    existed, money through a withdrawn payment link given back.
    The traveller gets it by e-mail; a cancellation's refund done at once (`just_made`) rides with the
    cancellation's own e-mail instead."""
    if refund.status != RefundStatus.SUCCEEDED:
        return None
    if not transaction.get_connection().in_atomic_block:
        raise transaction.TransactionManagementError("a credit note is issued in the refund's transaction")
    existing = CreditNote.objects.filter(refund=refund).first()
    if existing is not None:
        return existing
    booking = refund.booking
    if booking.payment_method == PaymentMethod.ACCOUNT:
        return None  # on the company's collective invoice, corrected there
    if invoices.waits(booking):  # issued with the invoices it corrects (payments/waiting_documents.py)
        invoices.hold(booking, since=refund.updated_at)  # waiting_documents finds refunds from then on
        logger.debug("%s: its credit note waits for the seller's legal details", booking.reference)
        return None
    corrected = corrected_invoice(refund)
    if corrected is None:
        return None
    issued_at = timezone.now()
    year = timezone.localtime(issued_at).year
    sequence = numbering.next_number(CreditNoteYear, year)
    number = NUMBER_FORMAT.format(year=year, sequence=sequence)
    reason = reason_of(refund, booking)
    rate = Decimal(corrected.content["vat_rate"])
    border, net_cents, vat_cents = cross_border.portion(
        corrected.content.get("cross_border"), refund.amount_cents, rate
    )
    language = corrected.language
    note = CreditNote.objects.create(
        number=number,
        year=year,
        sequence=sequence,
        invoice=corrected,
        booking=booking,
        refund=refund,
        reason=reason,
        issued_at=issued_at,
        language=language,
        net_cents=net_cents,
        vat_cents=vat_cents,
        gross_cents=refund.amount_cents,
        currency=refund.currency,
        content=_snapshot(
            booking,
            corrected,
            refund,
            reason,
            number=number,
            issued_at=issued_at,
            net_cents=net_cents,
            vat_cents=vat_cents,
            border=border,
        ),
    )
    if not (just_made and refund.reason == CANCELLATION_REFUND):
        mails.send_credit_note.enqueue(note.pk)  # the traveller's copy, after the commit
    return note


def corrected_invoice(refund: Refund) -> Invoice | None:
    """The invoice a refund corrects: the supplementary invoice of the price difference paid with the
    payment it went back to, else the booking's ride invoice. None (logged) when that money was never
    invoiced."""
    booking = refund.booking
    # Money that went back to a provider payment corrects what that payment paid for.
    paid_with = refund.payment.surcharge if refund.payment and refund.payment_intent_id else None
    if paid_with is not None:
        invoice = Invoice.objects.filter(surcharge=paid_with).first()
        if invoice is None:
            logger.info(
                "Refund %s of %s went back to a payment never invoiced (a withdrawn link): no credit note",
                refund.pk,
                booking.reference,
            )
        return invoice
    invoice = invoices.for_booking(booking)
    if invoice is None:
        logger.warning(
            "Refund %s of %s: the booking has no invoice (paid before invoices): no credit note",
            refund.pk,
            booking.reference,
        )
    return invoice


def reason_of(refund: Refund, booking: Booking) -> str:
    if refund.reason == PRICE_CHANGE_REFUND:
        return CreditNote.Reason.PRICE_CHANGE
    if booking.status == BookingStatus.CANCELLED:
        return CreditNote.Reason.CANCELLATION
    return CreditNote.Reason.REFUND


def _snapshot(
    booking: Booking,
    corrected: Invoice,
    refund: Refund,
    reason: str,
    *,
    number: str,
    issued_at,
    net_cents: int,
    vat_cents: int,
    border: dict | None,
) -> dict:
    """Everything the credit note prints, fixed at issue, worded in the corrected invoice's language."""
    base = corrected.content
    credit = priced_lines.of_credit(refund, reason, corrected)
    with translation.override(corrected.language):
        label = str(priced_lines.CREDIT_LABELS[CreditNote.Reason(credit.code)])
        if reason == CreditNote.Reason.PRICE_CHANGE:
            label = invoices.with_reason_by_hand(
                label, booking, refund.details.get(invoices.PRICE_BY_HAND_REASON)
            )
        reason_shown = str(CreditNote.Reason(reason).label)
    content = {
        key: base.get(key)
        for key in (
            "buyer",
            "reference",
            "service",
            "vehicle",
            "origin",
            "destination",
            "pickup_at",
        )
    }
    with translation.override(corrected.language):  # the seller as it is now, its details complete
        content["seller"] = invoices.seller_details(OperatorProfile.objects.filter(id=PROFILE_ID).first())
    fee = booking.cancellation_fee_cents if reason == CreditNote.Reason.CANCELLATION else None
    content.update(
        kind="credit_note",
        number=number,
        issued_at=issued_at.isoformat(),
        language=corrected.language,
        corrects={"number": corrected.number, "issued_at": base["issued_at"]},
        reason=reason,
        reason_shown=reason_shown,
        fee_kept=str(from_cents(fee)) if fee else None,
        lines=[printed_lines.printed(printed_lines.worded(credit, label))],
        net=str(from_cents(net_cents)),
        vat=str(from_cents(vat_cents)),
        vat_rate=base["vat_rate"],
        gross=str(from_cents(refund.amount_cents)),
        currency=refund.currency,
        cross_border=border,  # the corrected invoice's share of the route, the credit split as it was
    )
    return content
