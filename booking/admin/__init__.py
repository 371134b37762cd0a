"""The booking app in the admin: the lead-time and cancellation policies. The staff booking page and list
live with the back office above payments and dispatch (dispatch/admin/bookings.py)."""

from booking.admin import policies  # noqa: F401
