"""Factur-X / ZUGFeRD: the document's PDF as PDF/A-3 (its font embedded) with the CII XML attached as
factur-x.xml and declared in its XMP metadata, by the factur-x package."""

from facturx import generate_from_binary  # type: ignore[import-untyped]

from invoicing import collective_invoice_pdf, invoice_pdf
from invoicing.e_invoices import cii
from invoicing.e_invoices.data import EInvoice
from invoicing.models import CreditNote, Invoice


def write(document: Invoice | CreditNote, invoice: EInvoice) -> bytes:
    if isinstance(document, Invoice) and document.kind == Invoice.Kind.COLLECTIVE:
        pdf = collective_invoice_pdf.render(document, archival=True)
    else:
        pdf = invoice_pdf.render(document, archival=True)
    return generate_from_binary(
        pdf,
        cii.write(invoice),
        flavor="factur-x",
        level="en16931",
        check_xsd=False,  # the tests check it against the schema and the rules; a send never fails on it
        pdf_metadata={
            "author": invoice.seller.name,
            "keywords": "Factur-X",
            "title": invoice.number,
            "subject": invoice.number,
        },
        lang=invoice.language,
    )
