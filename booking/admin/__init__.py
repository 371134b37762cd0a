"""The booking app in the admin: the staff booking page and list, the dispatch board, phone bookings, and
the lead-time and cancellation policies. Each module registers what it shows."""

from booking.admin import bookings, policies  # noqa: F401
