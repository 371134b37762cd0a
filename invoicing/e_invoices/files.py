"""Which e-invoice a document gets: the one its company account chose (a collective invoice's company, or
the company of the booking a ride's invoice or credit note is for), as a file to mail or download."""

from dataclasses import dataclass

from django.utils import translation

from corporate.models import CompanyAccount, EInvoiceFormat
from invoicing.e_invoices import data, ebinterface, facturx, ubl
from invoicing.models import CreditNote, Invoice

XML = "application/xml"
PDF = "application/pdf"


@dataclass(frozen=True)
class File:
    name: str
    content: bytes
    media_type: str


def account_of(document: Invoice | CreditNote) -> CompanyAccount | None:
    if isinstance(document, Invoice) and document.company_account_id is not None:
        return document.company_account
    booking = document.booking
    return booking.company_account if booking is not None else None


def e_invoicing_account(document: Invoice | CreditNote) -> CompanyAccount | None:
    """The document's company when it chose an e-invoice."""
    account = account_of(document)
    return account if account is not None and account.e_invoice_format != EInvoiceFormat.NONE else None


def e_invoice(document: Invoice | CreditNote) -> File | None:
    """The document as its company's e-invoice; None when it has no company, the company chose none, or
    the document does not name its seller as an e-invoice must (issued before those details were kept)."""
    account = e_invoicing_account(document)
    if account is None or not data.complete(document.content):
        return None
    chosen = account.e_invoice_format
    stem = document.file_name.removesuffix(".pdf")
    with translation.override(document.content["language"]):
        reading = data.reading(document, account)
        if chosen == EInvoiceFormat.FACTUR_X:
            return File(f"{stem}-factur-x.pdf", facturx.write(document, reading), PDF)
        if chosen == EInvoiceFormat.XRECHNUNG:
            return File(f"{stem}-xrechnung.xml", ubl.write(reading), XML)
        return File(f"{stem}-ebinterface.xml", ebinterface.write(reading), XML)
