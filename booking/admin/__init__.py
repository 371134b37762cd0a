"""The booking app in the admin: the staff booking page and list, and the lead-time and cancellation
policies. The booking page also hosts the dispatch board, phone bookings and ride changes (dispatch/admin/)
and the refund page (payments/admin/) as its sub-pages. Each module registers what it shows."""

from booking.admin import bookings, policies  # noqa: F401
