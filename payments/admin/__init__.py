"""Payments in the admin: the refund page of a booking (a sub-page of the booking's admin page, so its URL
stays /admin/booking/booking/<pk>/refund/), and the read-only list of invoices (payments/admin/invoices.py).
Refunds and price differences have no admin pages of their own: staff see them on the booking's page."""

from payments.admin import invoices  # noqa: F401  (registers the invoice list)
