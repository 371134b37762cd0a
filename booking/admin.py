from django.contrib import admin, messages

from booking import availability, transitions
from booking.models import Booking, BookingStatus, LeadTimePolicy
from chauffeur.admin_versions import MovesSharedVersion
from pricing.money import CURRENCY, from_cents


@admin.register(LeadTimePolicy)
class LeadTimePolicyAdmin(MovesSharedVersion):
    shared_version = availability.POLICY  # every worker reads the edit again
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


@admin.register(Booking)
class BookingAdmin(admin.ModelAdmin):
    list_display = [
        "reference",
        "status",
        "pickup_at",
        "origin",
        "destination",
        "vehicle_class",
        "amount",
        "name",
    ]
    list_filter = ["status", ("pickup_at", admin.DateFieldListFilter), "vehicle_class", "payment_provider"]
    search_fields = ["reference", "name", "email"]
    date_hierarchy = "pickup_at"
    readonly_fields = [field.name for field in Booking._meta.fields]
    actions = ["mark_confirmed", "mark_completed", "mark_cancelled"]

    @admin.display(description="amount")
    def amount(self, booking: Booking) -> str:
        return f"{CURRENCY} {from_cents(booking.amount_cents)}"

    def has_add_permission(self, request):
        return False  # bookings come from checkout, with a server-computed price

    def has_delete_permission(self, request, obj=None):
        return False  # a paid booking is a record of money received: cancel it instead

    def _move(self, request, queryset, target: str) -> None:
        moved, refused = [], []
        for booking in queryset:
            try:
                moved.append(transitions.move(booking.pk, target).reference)
            except transitions.InvalidTransition:
                booking.refresh_from_db(fields=["status"])
                refused.append(f"{booking.reference} ({booking.get_status_display()})")
        if moved:
            self.message_user(
                request, f"{BookingStatus(target).label}: {', '.join(moved)}.", messages.SUCCESS
            )
        if refused:
            self.message_user(
                request, f"Not allowed from their state: {', '.join(refused)}.", messages.WARNING
            )

    @admin.action(description="Mark as confirmed (driver assigned)")
    def mark_confirmed(self, request, queryset):
        self._move(request, queryset, BookingStatus.CONFIRMED)

    @admin.action(description="Mark as completed (ride done)")
    def mark_completed(self, request, queryset):
        self._move(request, queryset, BookingStatus.COMPLETED)

    @admin.action(description="Cancel")
    def mark_cancelled(self, request, queryset):
        self._move(request, queryset, BookingStatus.CANCELLED)
