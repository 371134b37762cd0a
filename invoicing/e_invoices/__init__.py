"""Invoices and credit notes as EN 16931 e-invoices for the company accounts that ask for one
(docs/operations/invoices.md): Factur-X / ZUGFeRD, XRechnung (UBL) or ebInterface, written from the same
snapshot as the PDF (files.py chooses; data.py reads the snapshot once for all three)."""
