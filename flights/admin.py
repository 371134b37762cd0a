from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from flights import budget
from flights.models import FlightBudget
from sitekit.admin import OneRecordAdmin


@admin.register(FlightBudget)
class FlightBudgetAdmin(OneRecordAdmin):
    """Today's count comes from the shared cache (flights/budget.py)."""

    list_display = ["__str__", "daily_calls", "calls_today"]
    readonly_fields = ["calls_today"]
    fields = ["daily_calls", "calls_today"]

    @admin.display(description=_("calls today"))
    def calls_today(self, obj=None):
        used = budget.used_today()
        return "–" if used is None else used
