"""Issued documents in the admin: read-only, each one's PDF from the list (documents.py); the credit notes'
list (credit_notes.py). The invoices' list is payments' (payments/admin/invoices.py): it shows and records
what companies paid on their collective invoices, which is money."""

from invoicing.admin import credit_notes  # noqa: F401  (registers the list)
