"""Invoices in the admin: a read-only list (number, date, booking, gross) and each invoice's PDF for staff.
Nobody adds, changes or deletes an invoice here: they are issued with a payment and never change."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from chauffeur.l10n import money, short
from payments import invoice_pdf
from payments.models import Invoice


@admin.register(Invoice)
class InvoiceAdmin(admin.ModelAdmin):
    list_display = ("number", "issued", "booking_link", "gross_shown", "pdf_link")
    list_select_related = ("booking",)
    search_fields = ("number", "booking__reference", "booking__name")
    list_filter = ("year",)
    fields = (
        "number",
        "issued_at",
        "booking",
        "language",
        "net_cents",
        "vat_cents",
        "gross_cents",
        "currency",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def get_urls(self):
        download = path(
            "<int:pk>/pdf/", self.admin_site.admin_view(self.download), name="payments_invoice_pdf"
        )
        return [download, *super().get_urls()]

    def download(self, request: HttpRequest, pk: int) -> HttpResponse:
        invoice = get_object_or_404(Invoice, pk=pk)
        if not self.has_view_permission(request, invoice):
            raise PermissionDenied
        response = HttpResponse(invoice_pdf.render(invoice), content_type=invoice_pdf.MEDIA_TYPE)
        response["Content-Disposition"] = f'inline; filename="{invoice.file_name}"'
        return response

    @admin.display(description=_("issued"), ordering="issued_at")
    def issued(self, invoice: Invoice) -> str:
        return short(invoice.issued_at)

    @admin.display(description=_("booking"), ordering="booking__reference")
    def booking_link(self, invoice: Invoice) -> str:
        url = reverse("admin:booking_booking_change", args=[invoice.booking_id])
        return format_html('<a href="{}">{}</a>', url, invoice.booking.reference)

    @admin.display(description=_("gross"), ordering="gross_cents")
    def gross_shown(self, invoice: Invoice) -> str:
        return money(invoice.gross, invoice.currency)

    @admin.display(description=_("PDF"))
    def pdf_link(self, invoice: Invoice) -> str:
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:payments_invoice_pdf", args=[invoice.pk]), _("PDF")
        )
