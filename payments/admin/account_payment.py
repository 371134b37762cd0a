"""Money a company transferred against its collective invoice, recorded by staff (amount, date, note), and
the invoice list's filter "open" / "overdue" (payments/account_payments.py holds the rules)."""

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apikit.errors import DomainError
from invoicing.models import Invoice
from payments import account_payments
from payments.admin.forms import EuroField
from pricing.money import from_cents, to_cents
from sitekit.l10n import day, money


class AccountPaymentForm(forms.Form):
    amount = EuroField(label=gettext_lazy("Amount (EUR)"))
    received_on = forms.DateField(
        label=gettext_lazy("Received on"), widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    note = forms.CharField(label=gettext_lazy("Note"), max_length=200, required=False)


def payment_view(request: HttpRequest, invoice: Invoice, context: dict) -> HttpResponse:
    form = AccountPaymentForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            account_payments.record(
                invoice.pk,
                amount_cents=to_cents(data["amount"]),
                received_on=data["received_on"],
                note=data["note"],
                user=request.user,
            )
        except DomainError as refusal:  # nothing recorded: the form again, with the reason
            form.add_error("amount", refusal.in_words())
        else:
            messages.success(
                request,
                _("%(number)s: payment of %(amount)s recorded.")
                % {"number": invoice.number, "amount": money(data["amount"], invoice.currency)},
            )
            return redirect(
                reverse("admin:business_companyaccount_change", args=[invoice.company_account_id])
            )
    standing = account_payments.standing(invoice)
    return TemplateResponse(
        request,
        "admin/payments/invoice/payment.html",
        {
            **context,
            "title": _("Record a payment for %s") % invoice.number,
            "invoice": invoice,
            "form": form,
            "gross": money(invoice.gross, invoice.currency),
            "paid": money(from_cents(standing.paid_cents), invoice.currency),
            "open": money(from_cents(standing.open_cents), invoice.currency),
            "due": day(invoice.due_on) if invoice.due_on else "",
            "status": account_payments.STATUS_LABELS[standing.status],
            "payments": invoice.account_payments.select_related("payment"),
        },
    )


class StandingFilter(admin.SimpleListFilter):
    title = gettext_lazy("payment")
    parameter_name = "standing"

    def lookups(self, request, model_admin):
        return [("open", gettext_lazy("open")), ("overdue", gettext_lazy("overdue"))]

    def queryset(self, request, queryset):
        if self.value() == "open":
            return account_payments.open_invoices(queryset)
        if self.value() == "overdue":
            return account_payments.overdue_invoices(queryset)
        return queryset
