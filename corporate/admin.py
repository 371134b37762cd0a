"""Company accounts in the admin (docs/operations/business.md): the list with each company's open and overdue
amounts; on a company's page its details, who may book on it (each line an e-mail address or "@domain"),
its bookings on account, its collective invoices with their state and its API tokens."""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from booking.models import Booking, PaymentMethod
from corporate.models import CompanyAccount, EInvoiceFormat
from invoicing.models import Invoice
from operator_profile.models import PROFILE_ID, OperatorProfile
from payments import account_payments
from pricing.money import CURRENCY, from_cents
from sitekit.l10n import day, money, short
from sitekit.validators import one_line

SHOWN_BOOKINGS = 50  # the latest on the company's page; the booking list filters the rest


def booker_errors(text: str) -> list[str]:
    """The lines of `bookers` that are neither an e-mail address nor "@domain"."""
    wrong = []
    for line in text.splitlines():
        entry = line.strip()
        if not entry:
            continue
        probe = f"someone{entry}" if entry.startswith("@") else entry
        try:
            validate_email(probe)
        except ValidationError:
            wrong.append(entry)
    return wrong


SINGLE_LINE = ("name", "street_address", "postcode", "city", "vat_id", "buyer_reference", "supplier_number")


class CompanyAccountForm(forms.ModelForm):
    class Meta:
        model = CompanyAccount
        fields = [
            "name",
            "street_address",
            "postcode",
            "city",
            "country",
            "vat_id",
            "billing_email",
            "payment_terms_days",
            "language",
            "e_invoice_format",
            "buyer_reference",
            "supplier_number",
            "active",
            "bookers",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in SINGLE_LINE:  # printed on its collective invoices: a line break would split the address
            if name in self.fields:
                self.fields[name].validators.append(one_line)

    def clean_e_invoice_format(self) -> str:
        chosen = self.cleaned_data["e_invoice_format"]
        profile = OperatorProfile.objects.filter(id=PROFILE_ID).first()
        if chosen == EInvoiceFormat.XRECHNUNG and not (profile and profile.phone and profile.email):
            raise ValidationError(
                _("XRechnung names the seller's phone and e-mail: enter them in the operator profile first.")
            )
        return chosen

    def clean_bookers(self) -> str:
        text = self.cleaned_data["bookers"]
        wrong = booker_errors(text)
        if wrong:
            raise ValidationError(
                _("Not an e-mail address or @domain: %(lines)s"), params={"lines": ", ".join(wrong)}
            )
        return "\n".join(line.strip().lower() for line in text.splitlines() if line.strip())


@admin.register(CompanyAccount)
class CompanyAccountAdmin(admin.ModelAdmin):
    form = CompanyAccountForm
    list_display = ("name", "city", "billing_email", "active", "open_shown", "overdue_shown")
    list_filter = ("active", "language")
    search_fields = ("name", "vat_id", "billing_email", "bookers", "city")
    readonly_fields = ("bookings_on_account", "collective_invoices", "api_tokens")
    fieldsets = (
        (None, {"fields": ("name", "street_address", "postcode", "city", "country", "vat_id")}),
        (
            _("Billing"),
            {
                "fields": (
                    "billing_email",
                    "payment_terms_days",
                    "language",
                    "e_invoice_format",
                    "buyer_reference",
                    "supplier_number",
                    "active",
                )
            },
        ),
        (_("Who may book"), {"fields": ("bookers",)}),
        (_("Collective invoices"), {"fields": ("collective_invoices",)}),
        (_("Bookings on account"), {"fields": ("bookings_on_account",)}),
        (_("API tokens"), {"fields": ("api_tokens",)}),
    )

    def get_fieldsets(self, request: HttpRequest, obj=None):
        return self.fieldsets if obj is not None else self.fieldsets[:3]

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # its bookings and invoices keep it (switch it inactive instead)

    @admin.display(description=_("open"))
    def open_shown(self, account: CompanyAccount) -> str:
        return money(from_cents(self._totals(account)[0]), CURRENCY)

    @admin.display(description=_("overdue"))
    def overdue_shown(self, account: CompanyAccount) -> str:
        return money(from_cents(self._totals(account)[1]), CURRENCY)

    def _totals(self, account: CompanyAccount) -> tuple[int, int]:
        cached = getattr(account, "_standing_totals", None)
        if cached is None:
            cached = account_payments.totals(Invoice.objects.filter(company_account=account))
            account._standing_totals = cached  # type: ignore[attr-defined]  # a memo for this change list's row
        return cached

    @admin.display(description=_("Collective invoices"))
    def collective_invoices(self, account: CompanyAccount) -> str:
        rows = []
        for invoice in Invoice.objects.filter(kind=Invoice.Kind.COLLECTIVE, company_account=account).order_by(
            "-period_start"
        ):
            standing = account_payments.standing(invoice)
            rows.append(
                {
                    "invoice": invoice,
                    "month": invoice.period_start.strftime("%m/%Y"),
                    "issued": day(invoice.issued_at),
                    "due": day(invoice.due_on) if invoice.due_on else "",
                    "gross": money(invoice.gross, invoice.currency),
                    "paid": money(from_cents(standing.paid_cents), invoice.currency),
                    "open": money(from_cents(standing.open_cents), invoice.currency),
                    "status": standing.status,
                    "status_label": account_payments.STATUS_LABELS[standing.status],
                    "pdf": reverse("admin:invoicing_invoice_pdf", args=[invoice.pk]),
                    "payment": reverse("admin:invoicing_invoice_payment", args=[invoice.pk]),
                }
            )
        return render_to_string("admin/business/collective_invoices.html", {"rows": rows})

    @admin.display(description=_("Bookings on account"))
    def bookings_on_account(self, account: CompanyAccount) -> str:
        bookings = (
            Booking.objects.filter(company_account=account, payment_method=PaymentMethod.ACCOUNT)
            .select_related("collective_invoice_line__invoice")
            .order_by("-pickup_at")[:SHOWN_BOOKINGS]
        )
        rows = [
            {
                "booking": booking,
                "url": reverse("admin:booking_booking_change", args=[booking.pk]),
                "pickup": short(booking.pickup_at) if booking.pickup_at else "",
                "amount": money(from_cents(booking.amount_cents), booking.currency),
                "invoice": getattr(getattr(booking, "collective_invoice_line", None), "invoice", None),
            }
            for booking in bookings
        ]
        return render_to_string("admin/business/bookings_on_account.html", {"rows": rows})

    @admin.display(description=_("API tokens"))
    def api_tokens(self, account: CompanyAccount) -> str:
        tokens = [
            {"token": token, "url": reverse("admin:access_apitoken_change", args=[token.pk])}
            for token in account.api_tokens.all()
        ]
        return render_to_string("admin/business/api_tokens.html", {"tokens": tokens})
