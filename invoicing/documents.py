"""A booking's issued documents (its ride invoice, supplementary invoices, credit notes): which, in what
order, one by its number, and any as PDF."""

from itertools import chain

from booking.models import Booking
from invoicing import collective_invoice_pdf, invoice_pdf
from invoicing.models import CreditNote, Invoice

MEDIA_TYPE = invoice_pdf.MEDIA_TYPE


def of_booking(booking: Booking) -> list[Invoice | CreditNote]:
    """The booking's invoices (ride first, then supplementary) and credit notes, each in issue order."""
    invoices = Invoice.objects.filter(booking=booking).exclude(kind=Invoice.Kind.COLLECTIVE)
    credit_notes = CreditNote.objects.filter(booking=booking)
    return list(chain(invoices.order_by("issued_at", "pk"), credit_notes.order_by("issued_at", "pk")))


def pdf(document: Invoice | CreditNote, *, archival: bool = False) -> bytes:
    """Any issued document as PDF (`archival`: PDF/A-3): a company's collective invoice has a layout of
    its own."""
    if isinstance(document, Invoice) and document.kind == Invoice.Kind.COLLECTIVE:
        return collective_invoice_pdf.render(document, archival=archival)
    return invoice_pdf.render(document, archival=archival)


def by_number(booking: Booking, number: str) -> Invoice | CreditNote | None:
    """One of the booking's own documents by its number; None for another booking's or an unknown one."""
    return next((document for document in of_booking(booking) if document.number == number), None)
