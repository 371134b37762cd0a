"""A booking's issued documents (its ride invoice, supplementary invoices, credit notes): which, in what
order, one by its number, what they print of its ride (a return trip's invoice lists both rides), and any
as PDF."""

from decimal import Decimal

from booking.models import Booking
from invoicing.models import CreditNote, Invoice
from pricing.money import to_cents

MEDIA_TYPE = "application/pdf"


def of_booking(booking: Booking) -> list[Invoice | CreditNote]:
    """The booking's invoices (`invoices_of`) and credit notes, each in issue order."""
    credit_notes = CreditNote.objects.filter(booking=booking)
    return [*invoices_of(booking), *credit_notes.order_by("issued_at", "pk")]


def invoices_of(booking: Booking) -> list[Invoice]:
    """The booking's invoices in issue order: its ride's first (a way back's is its trip's), then its
    supplementary ones; not a company's collective invoice."""
    own = Invoice.objects.filter(booking=booking).exclude(kind=Invoice.Kind.COLLECTIVE)
    ride = for_booking(booking)
    listed = [ride] if ride is not None and ride.booking_id != booking.pk else []
    return [*listed, *own.select_related("surcharge").order_by("issued_at", "pk")]


def pdf(document: Invoice | CreditNote, *, archival: bool = False) -> bytes:
    """Any issued document as PDF (`archival`: PDF/A-3): a company's collective invoice has a layout of
    its own."""
    # fpdf2 and what it loads take about 50 MB: only a process that writes a PDF holds them.
    from invoicing import collective_invoice_pdf, invoice_pdf

    if isinstance(document, Invoice) and document.kind == Invoice.Kind.COLLECTIVE:
        return collective_invoice_pdf.render(document, archival=archival)
    return invoice_pdf.render(document, archival=archival)


def by_number(booking: Booking, number: str) -> Invoice | CreditNote | None:
    """One of the booking's own documents by its number; None for another booking's or an unknown one."""
    return next((document for document in of_booking(booking) if document.number == number), None)


def for_booking(booking: Booking) -> Invoice | None:
    """The invoice that lists the booking's ride: its own, or a way back's trip invoice (its way out's)."""
    invoice = Invoice.objects.filter(booking=booking, kind=Invoice.Kind.RIDE).first()
    if invoice is None and booking.way_out_id is not None:
        trip = Invoice.objects.filter(booking_id=booking.way_out_id, kind=Invoice.Kind.RIDE).first()
        invoice = trip if trip is not None and _listed(trip, booking) is not None else None
    return invoice


def part_of(invoice: Invoice, booking: Booking) -> dict:
    """What the invoice prints of the booking's ride (service, route, lines, VAT rate, share in Austria): a
    trip invoice's part for that ride, else the whole content."""
    return _listed(invoice, booking) or invoice.content


def _listed(invoice: Invoice, booking: Booking) -> dict | None:
    if not invoice.content.get("rides"):
        return invoice.content if invoice.booking_id == booking.pk else None
    return listed_part(invoice.content, booking)


def listed_part(content: dict, booking: Booking) -> dict | None:
    """The booking's ride's part of a trip invoice's content (or its draft); None when it lists no such
    ride."""
    return next((part for part in content.get("rides", ()) if part["reference"] == booking.reference), None)


def invoiced_cents(booking: Booking) -> int:
    """What the booking's invoices ask for its ride: its own invoices' (not a collective invoice's), and its
    part of a trip invoice."""
    own = Invoice.objects.filter(booking=booking).exclude(kind=Invoice.Kind.COLLECTIVE)
    total = sum(invoice.gross_cents for invoice in own if not invoice.content.get("rides"))
    trip = for_booking(booking)
    if trip is not None and trip.content.get("rides"):
        total += to_cents(Decimal(part_of(trip, booking)["gross"]))
    return total


def printed_lines_of(content: dict) -> list[dict]:
    """Every priced line a document prints: its own, or each ride's of a trip invoice."""
    if "rides" in content:
        return [line for part in content["rides"] for line in part["lines"]]
    return content.get("lines") or []
