"""Payments in the admin: the refund page of a booking (a sub-page of the booking's admin page, so its URL
stays /admin/booking/booking/<pk>/refund/). The payment models have no admin pages of their own: staff see
refunds and price differences on the booking's page."""
