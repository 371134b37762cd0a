from django.contrib import admin

from booking import availability
from booking.models import CancellationPolicy, LeadTimePolicy
from sitekit.admin import OneRecordAdmin
from sitekit.admin_versions import MovesSharedVersion


@admin.register(LeadTimePolicy)
class LeadTimePolicyAdmin(OneRecordAdmin, MovesSharedVersion):
    shared_version = availability.POLICY  # every worker reads the edit again
    list_display = [
        "__str__",
        "minimum_lead_minutes",
        "night_start",
        "night_end",
        "night_earliest_pickup",
        "max_days_ahead",
    ]


@admin.register(CancellationPolicy)
class CancellationPolicyAdmin(OneRecordAdmin):
    list_display = ["__str__", "free_until_hours", "late_fee_percent", "no_show_fee_percent"]
