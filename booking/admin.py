from django.contrib import admin

from booking.models import LeadTimePolicy


@admin.register(LeadTimePolicy)
class LeadTimePolicyAdmin(admin.ModelAdmin):
    list_display = [
        "__str__",
        "minimum_lead_minutes",
        "night_start",
        "night_end",
        "night_earliest_pickup",
        "max_days_ahead",
    ]

    def has_add_permission(self, request):
        return not LeadTimePolicy.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False
