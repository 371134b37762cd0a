"""A booking's issued documents (its ride invoice, supplementary invoices, credit notes): which, in what
order, one by its number, and any as PDF."""

from booking.models import Booking
from invoicing import collective_invoice_pdf, invoice_pdf, invoices
from invoicing.models import CreditNote, Invoice

MEDIA_TYPE = invoice_pdf.MEDIA_TYPE


def of_booking(booking: Booking) -> list[Invoice | CreditNote]:
    """The booking's invoices (`invoices_of`) and credit notes, each in issue order."""
    credit_notes = CreditNote.objects.filter(booking=booking)
    return [*invoices_of(booking), *credit_notes.order_by("issued_at", "pk")]


def invoices_of(booking: Booking) -> list[Invoice]:
    """The booking's invoices in issue order: its ride's first (a way back's is its trip's), then its
    supplementary ones; not a company's collective invoice."""
    own = Invoice.objects.filter(booking=booking).exclude(kind=Invoice.Kind.COLLECTIVE)
    ride = invoices.for_booking(booking)
    listed = [ride] if ride is not None and ride.booking_id != booking.pk else []
    return [*listed, *own.select_related("surcharge").order_by("issued_at", "pk")]


def pdf(document: Invoice | CreditNote, *, archival: bool = False) -> bytes:
    """Any issued document as PDF (`archival`: PDF/A-3): a company's collective invoice has a layout of
    its own."""
    if isinstance(document, Invoice) and document.kind == Invoice.Kind.COLLECTIVE:
        return collective_invoice_pdf.render(document, archival=archival)
    return invoice_pdf.render(document, archival=archival)


def by_number(booking: Booking, number: str) -> Invoice | CreditNote | None:
    """One of the booking's own documents by its number; None for another booking's or an unknown one."""
    return next((document for document in of_booking(booking) if document.number == number), None)
