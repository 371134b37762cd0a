from decimal import Decimal

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _

from pricing import services
from pricing.bands import band_errors
from pricing.models import DistanceBand, Extra, ExtraLimit, Tariff, Tour, TourPrice, VehicleClass
from sitekit.admin import NamesChanges
from sitekit.admin_labels import LabelledInlineFormSet, LabelledTabularInline, LabelsEditableList
from sitekit.admin_versions import MovesSharedVersion
from sitekit.validators import one_line


class RepricesOnSave(NamesChanges, MovesSharedVersion):
    """Any change here reaches every server process: the tariff version moves once the edit commits."""

    shared_version = services.TARIFFS


class DistanceBandFormSet(LabelledInlineFormSet):
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


class DistanceBandInline(LabelledTabularInline):
    model = DistanceBand
    formset = DistanceBandFormSet
    extra = 0
    min_num = 1


def km(value) -> str:
    """Kilometres without a needless “.0”: 50, 12.5 (12,5 in German)."""
    return number_format(Decimal(f"{value.normalize():f}"), use_l10n=True)


@admin.register(Tariff)
class TariffAdmin(RepricesOnSave):
    list_display = [
        "vehicle_class",
        "base_fare",
        "per_km",
        "minimum_fare",
        "outside_zone_a_surcharge",
        "waiting_rate",
        "hourly_rate",
        "vat",
        "updated_at",
    ]
    list_select_related = ["vehicle_class"]
    fieldsets = [
        (None, {"fields": ["vehicle_class"]}),
        (
            _("Distance bookings"),
            {"fields": ["base_fare", "minimum_fare", "outside_zone_a_surcharge", "stop_fee"]},
        ),
        (_("Hourly bookings"), {"fields": ["hourly_rate", "minimum_hours"]}),
        (_("All bookings"), {"fields": ["waiting_rate", "max_stops", "rounding_step", "vat_rate"]}),
    ]
    inlines = [DistanceBandInline]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("bands")

    @admin.display(description=_("EUR per km"))
    def per_km(self, tariff: Tariff) -> str:
        """The distance bands in a line: “0–50 km 2.00 · 50–200 km 1.60 · from 200 km 1.40”."""
        return " · ".join(
            f"{km(band.from_km)}–{km(band.to_km)} km {number_format(band.rate_per_km, 2, use_l10n=True)}"
            if band.to_km is not None
            else f"{_('from')} {km(band.from_km)} km {number_format(band.rate_per_km, 2, use_l10n=True)}"
            for band in tariff.bands.all()
        )

    @admin.display(description=_("VAT"), ordering="vat_rate")
    def vat(self, tariff: Tariff) -> str:
        return f"{(tariff.vat_rate * 100).normalize():f} %"

    def has_delete_permission(self, request, obj=None):
        return False  # a class without tariff cannot be priced: deactivate the vehicle class instead


class NamesOnOneLine:
    """A ModelAdmin mixin: the names invoices print (a class's, a tour's) refuse line breaks, on the page and
    in the editable list."""

    one_line_fields: tuple[str, ...] = ()

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if field is not None and db_field.name in self.one_line_fields:
            field.validators.append(one_line)
        return field


@admin.register(VehicleClass)
class VehicleClassAdmin(NamesOnOneLine, LabelsEditableList, RepricesOnSave):
    one_line_fields = ("display_name",)
    list_display = ["code", "display_name", "passengers", "luggage", "order", "active"]
    list_editable = ["display_name", "passengers", "luggage", "order", "active"]

    def has_delete_permission(self, request, obj=None):
        return False  # bookings and tariffs refer to it: deactivate instead


class TourPriceInline(LabelledTabularInline):
    model = TourPrice
    extra = 0


@admin.register(Tour)
class TourAdmin(NamesOnOneLine, LabelsEditableList, RepricesOnSave):
    one_line_fields = ("name_de", "name_en")
    list_display = ["slug", "name_en", "name_de", "included_hours", "area_radius_km", "order", "active"]
    list_editable = ["order", "active"]
    prepopulated_fields = {"slug": ["name_en"]}
    inlines = [TourPriceInline]


class ExtraLimitInline(LabelledTabularInline):
    model = ExtraLimit
    extra = 0


@admin.register(Extra)
class ExtraAdmin(NamesOnOneLine, LabelsEditableList, RepricesOnSave):
    one_line_fields = ("name_de", "name_en")
    list_display = [
        "code",
        "name_en",
        "name_de",
        "price",
        "per_piece",
        "maximum",
        "child_seat",
        "vehicle_must_carry",
        "order",
        "active",
    ]
    list_editable = ["price", "order", "active"]
    inlines = [ExtraLimitInline]

    # Booked rides and cars' equipment name an extra by its code: it is set once.
    def get_readonly_fields(self, request, obj=None):
        return ["code"] if obj is not None else []

    def get_prepopulated_fields(self, request, obj=None):
        return {} if obj is not None else {"code": ["name_en"]}

    def has_delete_permission(self, request, obj=None):
        return False  # booked rides and vehicles' equipment name it: deactivate instead
