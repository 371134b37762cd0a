"""Payments in the admin: the refund page of a booking (a sub-page of the booking's admin page, so its URL
stays /admin/booking/booking/<pk>/refund/), the read-only list of invoices with what companies paid on their
collective invoices (payments/admin/invoices.py, on invoicing's read-only document base), and the ledger's
payments, read-only, each with its refunds (payments/admin/ledger.py). Refunds and price differences have
no admin pages of their own: staff see them on the booking's page and the payment's."""

from payments.admin import invoices, ledger  # noqa: F401  (registers the lists)
