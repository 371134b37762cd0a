from django.contrib import admin
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet

from chauffeur.admin_versions import MovesSharedVersion
from pricing import services
from pricing.bands import band_errors
from pricing.models import DistanceBand, Tariff, Tour, TourPrice, VehicleClass


class RepricesOnSave(MovesSharedVersion):
    """Any change here reaches every server process: the tariff version moves once the edit commits."""

    shared_version = services.TARIFFS


class DistanceBandFormSet(BaseInlineFormSet):
    def clean(self):
        super().clean()
        if any(self.errors):
            return
        kept = [
            form.cleaned_data for form in self.forms if form.cleaned_data and not form.cleaned_data["DELETE"]
        ]
        errors = band_errors([(band["from_km"], band.get("to_km")) for band in kept])
        if errors:
            raise ValidationError(errors)


class DistanceBandInline(admin.TabularInline):
    model = DistanceBand
    formset = DistanceBandFormSet
    extra = 0
    min_num = 1


@admin.register(Tariff)
class TariffAdmin(RepricesOnSave):
    list_display = [
        "vehicle_class",
        "base_fare",
        "minimum_fare",
        "outside_zone_a_surcharge",
        "waiting_rate",
        "hourly_rate",
        "vat_rate",
        "updated_at",
    ]
    fieldsets = [
        (None, {"fields": ["vehicle_class"]}),
        ("Distance bookings", {"fields": ["base_fare", "minimum_fare", "outside_zone_a_surcharge"]}),
        ("Hourly bookings", {"fields": ["hourly_rate", "minimum_hours"]}),
        ("All bookings", {"fields": ["waiting_rate", "rounding_step", "vat_rate"]}),
    ]
    inlines = [DistanceBandInline]

    def has_delete_permission(self, request, obj=None):
        return False  # a class without tariff cannot be priced: deactivate the vehicle class instead


@admin.register(VehicleClass)
class VehicleClassAdmin(RepricesOnSave):
    list_display = ["code", "display_name", "passengers", "luggage", "order", "active"]
    list_editable = ["display_name", "passengers", "luggage", "order", "active"]

    def has_delete_permission(self, request, obj=None):
        return False  # bookings and tariffs refer to it: deactivate instead


class TourPriceInline(admin.TabularInline):
    model = TourPrice
    extra = 0


@admin.register(Tour)
class TourAdmin(RepricesOnSave):
    list_display = ["slug", "name_en", "name_de", "included_hours", "area_radius_km", "order", "active"]
    list_editable = ["order", "active"]
    prepopulated_fields = {"slug": ["name_en"]}
    inlines = [TourPriceInline]
