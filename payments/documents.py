"""A booking's issued documents (its ride invoice, supplementary invoices, credit notes) and the rule they
keep (docs/operations/invoices.md): what they invoice less what they credit is what was received less
what was refunded."""

from dataclasses import dataclass
from itertools import chain

from django.db.models import Sum

from booking.models import Booking
from payments import collective_invoice_pdf, invoice_pdf, ledger, refunds
from payments.models import CreditNote, Invoice

MEDIA_TYPE = invoice_pdf.MEDIA_TYPE


def of_booking(booking: Booking) -> list[Invoice | CreditNote]:
    """The booking's invoices (ride first, then supplementary) and credit notes, each in issue order."""
    invoices = Invoice.objects.filter(booking=booking).exclude(kind=Invoice.Kind.COLLECTIVE)
    credit_notes = CreditNote.objects.filter(booking=booking)
    return list(chain(invoices.order_by("issued_at", "pk"), credit_notes.order_by("issued_at", "pk")))


def pdf(document: Invoice | CreditNote) -> bytes:
    """Any issued document as PDF: a company's collective invoice has a layout of its own."""
    if isinstance(document, Invoice) and document.kind == Invoice.Kind.COLLECTIVE:
        return collective_invoice_pdf.render(document)
    return invoice_pdf.render(document)


def by_number(booking: Booking, number: str) -> Invoice | CreditNote | None:
    """One of the booking's own documents by its number; None for another booking's or an unknown one."""
    return next((document for document in of_booking(booking) if document.number == number), None)


@dataclass(frozen=True)
class Balance:
    invoiced_cents: int
    credited_cents: int
    received_cents: int
    refunded_cents: int

    @property
    def documented_cents(self) -> int:
        return self.invoiced_cents - self.credited_cents

    @property
    def kept_cents(self) -> int:
        return self.received_cents - self.refunded_cents

    @property
    def adds_up(self) -> bool:
        return self.documented_cents == self.kept_cents


def balance(booking: Booking) -> Balance:
    """Sum of the invoices' gross − sum of the credit notes' gross against money received − money
    refunded. It adds up for every booking whose payment was invoiced; one paid before invoices existed,
    or on a company account (invoiced collectively), shows what it lacks."""
    invoiced = (
        Invoice.objects.filter(booking=booking)
        .exclude(kind=Invoice.Kind.COLLECTIVE)
        .aggregate(total=Sum("gross_cents"))["total"]
    )
    credited = CreditNote.objects.filter(booking=booking).aggregate(total=Sum("gross_cents"))["total"]
    return Balance(
        invoiced_cents=invoiced or 0,
        credited_cents=credited or 0,
        received_cents=ledger.received_cents(booking),
        refunded_cents=refunds.refunded_cents(booking),
    )
