"""Dispatch in the admin: the dispatch board and its CSV export, and the forms of assigning, changing and
booking a ride by phone. They are sub-pages of the booking's admin (/admin/booking/booking/dispatch/ …)."""
