"""Dispatch in the admin: drivers and vehicles with their papers (fleet.py), the staff booking page and
list (bookings.py: above payments and dispatch, it calls both), the dispatch board and its CSV export, and
the forms of assigning, changing and booking a ride by phone, sub-pages of the booking page
(/admin/booking/booking/dispatch/ …)."""

from django.contrib import admin

from dispatch.admin import bookings, fleet  # noqa: F401
from dispatch.models import RideDayPolicy
from sitekit.admin import OneRecordAdmin


@admin.register(RideDayPolicy)
class RideDayPolicyAdmin(OneRecordAdmin):
    list_display = [
        "__str__",
        "included_waiting_minutes",
        "included_waiting_flight_minutes",
        "start_window_minutes",
        "set_off_minutes",
    ]
