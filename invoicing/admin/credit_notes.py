"""Credit notes in the admin: a read-only list beside the invoices (number, date, the invoice corrected,
booking, reason, gross) with each one's PDF. Nobody adds, changes or deletes one: they are issued with a
refund and never change."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from invoicing.admin.documents import IssuedDocumentAdmin
from invoicing.models import CreditNote
from sitekit.l10n import money, short


@admin.register(CreditNote)
class CreditNoteAdmin(IssuedDocumentAdmin):
    list_display = ("number", "issued", "corrects", "booking_link", "reason", "gross_shown", "files_shown")
    list_select_related = ("booking__company_account", "invoice")
    search_fields = ("number", "invoice__number", "booking__reference", "booking__name")
    list_filter = ("year", "reason")
    fields = (
        "number",
        "issued_at",
        "invoice",
        "booking",
        "reason",
        "language",
        "net_cents",
        "vat_cents",
        "gross_cents",
        "currency",
    )
    readonly_fields = fields

    @admin.display(description=_("issued"), ordering="issued_at")
    def issued(self, note: CreditNote) -> str:
        return short(note.issued_at)

    @admin.display(description=_("corrects"), ordering="invoice__number")
    def corrects(self, note: CreditNote) -> str:
        url = reverse("admin:invoicing_invoice_pdf", args=[note.invoice_id])
        return format_html('<a href="{}">{}</a>', url, note.invoice.number)

    @admin.display(description=_("booking"), ordering="booking__reference")
    def booking_link(self, note: CreditNote) -> str:
        if note.booking is None:
            return "—"
        url = reverse("admin:booking_booking_change", args=[note.booking_id])
        return format_html('<a href="{}">{}</a>', url, note.booking.reference)

    @admin.display(description=_("gross"), ordering="gross_cents")
    def gross_shown(self, note: CreditNote) -> str:
        return money(note.gross, note.currency)
