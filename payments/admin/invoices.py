"""Invoices in the admin: a read-only list (number, date, booking or company, gross) and each invoice's PDF
for staff. Nobody adds, changes or deletes an invoice here: they are issued with a payment and never change.
A company's collective invoice also shows what is open or overdue, and takes the payments staff record
(payments/admin/account_payment.py)."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.functional import Promise
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from invoicing.admin.documents import IssuedDocumentAdmin
from invoicing.models import Invoice
from payments import account_payments
from payments.admin.account_payment import StandingFilter, payment_view
from pricing.money import from_cents
from sitekit.l10n import money, short


@admin.register(Invoice)
class InvoiceAdmin(IssuedDocumentAdmin):
    list_display = (
        "number",
        "issued",
        "booking_link",
        "gross_shown",
        "standing_shown",
        "payment_link",
        "files_shown",
    )
    list_select_related = ("booking__company_account", "company_account")
    # a way back's reference finds its trip's invoice, kept with the way out
    search_fields = (
        "number",
        "booking__reference",
        "booking__way_back__reference",
        "booking__name",
        "company_account__name",
    )
    list_filter = ("year", "kind", StandingFilter)
    fields = (
        "number",
        "kind",
        "issued_at",
        "booking",
        "company_account",
        "period_start",
        "due_on",
        "language",
        "net_cents",
        "vat_cents",
        "gross_cents",
        "currency",
    )
    readonly_fields = (*fields, "standing_shown")

    def get_fields(self, request: HttpRequest, obj=None):
        if obj is not None and obj.kind == Invoice.Kind.COLLECTIVE:
            return (*self.fields, "standing_shown")
        return self.fields

    def get_urls(self):
        payment = path(
            "<int:pk>/payment/", self.admin_site.admin_view(self.payment), name="invoicing_invoice_payment"
        )
        return [payment, *super().get_urls()]

    def payment(self, request: HttpRequest, pk: int) -> HttpResponse:
        invoice = get_object_or_404(Invoice, pk=pk, kind=Invoice.Kind.COLLECTIVE)
        if not request.user.has_perm("payments.add_accountpayment"):
            raise PermissionDenied
        return payment_view(request, invoice, self.admin_site.each_context(request))

    @admin.display(description=_("issued"), ordering="issued_at")
    def issued(self, invoice: Invoice) -> str:
        return short(invoice.issued_at)

    @admin.display(description=_("booking or company"), ordering="booking__reference")
    def booking_link(self, invoice: Invoice) -> str:
        if invoice.company_account is not None:
            url = reverse("admin:business_companyaccount_change", args=[invoice.company_account_id])
            return format_html('<a href="{}">{}</a>', url, invoice.company_account.name)
        if invoice.booking is None:
            return "–"
        url = reverse("admin:booking_booking_change", args=[invoice.booking_id])
        return format_html('<a href="{}">{}</a>', url, invoice.booking.reference)

    @admin.display(description=_("open"))
    def standing_shown(self, invoice: Invoice) -> str | Promise:
        """A collective invoice's state and what is still open."""
        if invoice.kind != Invoice.Kind.COLLECTIVE:
            return "–"
        standing = account_payments.standing(invoice)
        label = account_payments.STATUS_LABELS[standing.status]
        if standing.status == "paid":
            return label
        return f"{label}: {money(from_cents(standing.open_cents), invoice.currency)}"

    @admin.display(description=_("record a payment"))
    def payment_link(self, invoice: Invoice) -> str:
        """A link of its own (a cell with nothing else: axe-core's links-in-text rule)."""
        if invoice.kind != Invoice.Kind.COLLECTIVE or account_payments.standing(invoice).status == "paid":
            return "–"
        url = reverse("admin:invoicing_invoice_payment", args=[invoice.pk])
        return format_html('<a href="{}">{}</a>', url, _("record a payment"))

    @admin.display(description=_("gross"), ordering="gross_cents")
    def gross_shown(self, invoice: Invoice) -> str:
        return money(invoice.gross, invoice.currency)
