"""Payments in the admin: the refund page of a booking (a sub-page of the booking's admin page, so its URL
stays /admin/booking/booking/<pk>/refund/), and the read-only lists of invoices and credit notes
(payments/admin/invoices.py, payments/admin/credit_notes.py, on the read-only base in
payments/admin/documents.py), and the ledger's payments, read-only, each with its refunds
(payments/admin/ledger.py). Refunds and price differences have no admin pages of their own: staff see
them on the booking's page and the payment's."""

from payments.admin import credit_notes, invoices, ledger  # noqa: F401  (registers the lists)
