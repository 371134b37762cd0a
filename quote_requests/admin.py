"""Quote requests in the back office: the open ones first; staff read the trip, answer the traveller by
e-mail or phone, then mark the request answered or closed (with a note for colleagues). What the traveller
asked stays as they asked it."""

from django.contrib import admin
from django.db.models import Case, When
from django.utils.translation import gettext_lazy as _

from quote_requests.models import QuoteRequest, QuoteRequestStatus

TRIP = ("origin", "destination", "pickup_at", "passengers", "luggage", "vehicle_class", "details", "reason")
WHO = ("name", "email", "phone", "locale", "channel", "api_token")
WHEN = ("created_at", "updated_at")


@admin.register(QuoteRequest)
class QuoteRequestAdmin(admin.ModelAdmin):
    list_display = [
        "reference",
        "status",
        "pickup_at",
        "origin",
        "destination",
        "passengers",
        "name",
        "created_at",
    ]
    list_filter = ["status", "channel"]
    search_fields = ["reference", "name", "email", "phone", "origin", "destination"]
    readonly_fields = ("reference", *TRIP, *WHO, *WHEN)
    fieldsets = [
        (None, {"fields": ["reference", "status", "staff_note"]}),
        (_("The trip"), {"fields": TRIP}),
        (_("Who asks"), {"fields": WHO}),
        (None, {"fields": WHEN}),
    ]

    def get_ordering(self, request):
        # the open ones first, then what was asked last
        return [Case(When(status=QuoteRequestStatus.OPEN, then=0), default=1), "-created_at"]

    def has_add_permission(self, request) -> bool:
        return False  # travellers and agents ask; staff take a phone booking instead
