from django.contrib import admin

from chauffeur.admin import NamesChanges
from fleet.models import Driver, Vehicle


@admin.register(Driver)
class DriverAdmin(NamesChanges, admin.ModelAdmin):
    list_display = ["name", "phone", "email", "languages", "active"]
    list_filter = ["active"]
    search_fields = ["name", "phone", "email"]

    def has_delete_permission(self, request, obj=None):
        return False  # bookings name their driver: deactivate instead


@admin.register(Vehicle)
class VehicleAdmin(NamesChanges, admin.ModelAdmin):
    list_display = ["plate", "vehicle_class", "model", "seats", "luggage", "active"]
    list_filter = ["vehicle_class", "active"]
    search_fields = ["plate", "model"]

    def has_delete_permission(self, request, obj=None):
        return False  # bookings name their vehicle: deactivate instead
