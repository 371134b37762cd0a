"""Drivers and vehicles in the admin, with their papers: each paper's kind, number, last valid day and a
scan, shown only to staff who may see papers (never at a public address). The lists show which papers are
expired, expire within the reminder's days (dispatch/models.py RideDayPolicy) or are missing."""

from datetime import date, timedelta

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.http import content_disposition_header
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from dispatch.models import ride_day_policy
from fleet import papers
from fleet.models import Driver, DriverPaper, Paper, Vehicle, VehicleEquipment, VehiclePaper
from sitekit import l10n
from sitekit.admin import NamesChanges
from sitekit.admin_labels import LabelledTabularInline
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


class PaperForm(forms.ModelForm):
    scan_file = forms.FileField(
        label=_("scan"),
        required=False,
        help_text=format_lazy(_("PDF, JPEG or PNG, at most {mb} MB."), mb=papers.MAX_SCAN_BYTES // 2**20),
    )
    remove_scan = forms.BooleanField(label=_("remove the scan"), required=False)

    def clean_scan_file(self):
        upload = self.cleaned_data.get("scan_file")
        if upload is None:
            return None
        if upload.size > papers.MAX_SCAN_BYTES:
            raise forms.ValidationError(
                _("The scan is %(size)s MB; at most %(limit)s MB.")
                % {"size": round(upload.size / 2**20, 1), "limit": papers.MAX_SCAN_BYTES // 2**20}
            )
        content = upload.read()
        media_type = papers.scan_type(content)
        if media_type is None:
            raise forms.ValidationError(_("Upload a PDF, JPEG or PNG file."))
        return upload.name[-200:], content, media_type

    def save(self, commit=True):
        paper = super().save(commit=False)
        if self.cleaned_data.get("scan_file"):
            paper.scan_name, paper.scan, paper.scan_type = self.cleaned_data["scan_file"]
        elif self.cleaned_data.get("remove_scan"):
            paper.scan, paper.scan_name, paper.scan_type = None, "", ""
        if commit:
            paper.save()
        return paper


class PaperInline(LabelledTabularInline):
    form = PaperForm
    extra = 0
    fields = ["kind", "number", "expires_on", "scan_shown", "scan_file", "remove_scan"]
    readonly_fields = ["scan_shown"]

    @admin.display(description=_("scan on file"))
    def scan_shown(self, paper: Paper) -> str:
        if not paper.pk or not paper.scan_type:
            return "—"
        holder = paper.driver if isinstance(paper, DriverPaper) else paper.vehicle  # type: ignore[attr-defined]
        url = reverse(f"admin:fleet_{holder._meta.model_name}_paper_scan", args=[holder.pk, paper.pk])
        return format_html('<a href="{}" target="_blank" rel="noopener">{}</a>', url, paper.scan_name)


class DriverPaperInline(PaperInline):
    model = DriverPaper


class VehiclePaperInline(PaperInline):
    model = VehiclePaper


class PapersFilter(admin.SimpleListFilter):
    title = _("papers")
    parameter_name = "papers"

    def lookups(self, request, model_admin):
        return [("attention", _("expired or expiring soon")), ("missing", _("missing"))]

    def queryset(self, request, queryset):
        if self.value() not in ("attention", "missing"):
            return queryset
        soon = _soon()
        wanted = [
            holder.pk
            for holder in queryset.prefetch_related("papers")
            if (papers.missing(holder) if self.value() == "missing" else papers.lapsed(holder, soon))
        ]
        return queryset.filter(pk__in=wanted)


class HoldsPapers(NamesChanges, admin.ModelAdmin):
    """A driver's or a vehicle's page with its papers, their state in the list, and their scans."""

    paper_model: type[Paper]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("papers")

    def has_delete_permission(self, request, obj=None):
        return False  # bookings name their drivers and vehicles: deactivate instead

    @admin.display(description=_("papers"))
    def papers_shown(self, holder: Driver | Vehicle) -> str:
        """What needs staff: papers expired or expiring within the reminder's days, and kinds missing."""
        today, soon = timezone.localdate(), _soon()
        shown = [
            (_("%(paper)s expired on %(day)s") if until < today else _("%(paper)s until %(day)s"))
            % {"paper": paper.get_kind_display(), "day": l10n.day(until)}  # type: ignore[attr-defined]
            for paper, until in papers.lapsed(holder, soon)
        ]
        if absent := papers.missing(holder):
            shown.append(_("missing: %s") % ", ".join(absent))
        if not shown:
            return str(_("valid"))
        return format_html_join(format_html("<br>"), "⚠ {}", ((text,) for text in shown))

    def get_urls(self):
        name = f"fleet_{self.model._meta.model_name}_paper_scan"
        view = self.admin_site.admin_view(self.scan)
        return [path("<int:holder_id>/papers/<int:paper_id>/scan/", view, name=name), *super().get_urls()]

    def scan(self, request: HttpRequest, holder_id: int, paper_id: int) -> HttpResponse:
        """A paper's scan, for staff who may see papers (as every admin page, never cached). A photo opens
        sandboxed (it runs nothing); a PDF, which may carry scripts, is downloaded."""
        if not request.user.has_perm(f"fleet.view_{self.paper_model._meta.model_name}"):
            raise PermissionDenied
        owner = self.model._meta.model_name
        paper = get_object_or_404(self.paper_model, pk=paper_id, **{f"{owner}_id": holder_id})
        if not paper.scan_type:
            raise Http404("No scan.")
        response = HttpResponse(bytes(paper.scan or b""), content_type=paper.scan_type)
        as_download = paper.scan_type == "application/pdf"
        response["Content-Disposition"] = (
            content_disposition_header(as_download, paper.scan_name or "scan") or ""
        )
        response["Content-Security-Policy"] = "default-src 'none'; sandbox"
        return response


@admin.register(Driver)
class DriverAdmin(HoldsPapers):
    form = DriverForm
    paper_model = DriverPaper
    inlines = [DriverPaperInline]
    list_display = ["name", "phone", "email", "languages", "active", "papers_shown"]
    list_filter = ["active", PapersFilter]
    search_fields = ["name", "phone", "email"]


class VehicleEquipmentInline(LabelledTabularInline):
    """The child seats (and whatever else a ride may need the car to carry) in the car."""

    model = VehicleEquipment
    extra = 0


@admin.register(Vehicle)
class VehicleAdmin(HoldsPapers):
    paper_model = VehiclePaper
    inlines = [VehicleEquipmentInline, VehiclePaperInline]
    list_display = [
        "plate",
        "vehicle_class",
        "model",
        "seats",
        "luggage",
        "equipment_shown",
        "active",
        "papers_shown",
    ]
    list_filter = ["vehicle_class", "active", PapersFilter]
    search_fields = ["plate", "model"]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("equipment__extra")

    @admin.display(description=_("carries"))
    def equipment_shown(self, vehicle: Vehicle) -> str:
        return ", ".join(str(item) for item in vehicle.equipment.all()) or "—"


def _soon() -> date:
    """The first day after the reminder's window: a paper not valid on it expires soon (or has)."""
    return timezone.localdate() + timedelta(days=ride_day_policy().paper_reminder_days + 1)
