"""Factur-X / ZUGFeRD: the document's PDF as PDF/A-3 (its font embedded) with the CII XML attached as
factur-x.xml and declared in its XMP metadata, by the factur-x package."""

from invoicing import documents
from invoicing.e_invoices import cii
from invoicing.e_invoices.data import EInvoice
from invoicing.models import CreditNote, Invoice


def write(document: Invoice | CreditNote, invoice: EInvoice) -> bytes:
    # factur-x loads pypdf and lxml's schemas (about 16 MB): only a process that writes one holds them.
    from facturx import generate_from_binary  # type: ignore[import-untyped]

    return generate_from_binary(
        documents.pdf(document, archival=True),
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
