from django import forms
from django.contrib import admin

from fleet.models import Driver, Vehicle
from sitekit.admin import NamesChanges
from sitekit.phones import PhoneNumberField


class DriverForm(forms.ModelForm):
    # Travellers tap it to call their chauffeur: a number, kept as E.164 like every phone we store.
    phone = PhoneNumberField(
        label=Driver._meta.get_field("phone").verbose_name,
        help_text=Driver._meta.get_field("phone").help_text,
    )

    class Meta:
        model = Driver
        fields = ["name", "phone", "email", "languages", "active"]


@admin.register(Driver)
class DriverAdmin(NamesChanges, admin.ModelAdmin):
    form = DriverForm
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
