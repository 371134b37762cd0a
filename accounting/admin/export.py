"""The accountant's export page of the admin (/admin/accounting-export/, wired in config/urls.py beside the
revenue page): a period of Vienna days (last month by default), what the file will hold (counts, sums, VAT per
rate), and the file itself in BMD's import layout (accounting/export.py), streamed. For staff who may
view invoices."""

from datetime import date, timedelta

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseBase, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounting import export as service
from pricing.money import from_cents
from sitekit import l10n

DATE_INPUTS = ["%Y-%m-%d", "%d.%m.%Y"]
FIRST_YEAR, LAST_YEAR = (
    2000,
    2099,
)  # as the revenue page's months  # the browser's date input; typed where it has none


def may_export(user) -> bool:
    return user.has_perm("invoicing.view_invoice")


class PeriodForm(forms.Form):
    first = forms.DateField(
        label=gettext_lazy("From day"),
        input_formats=DATE_INPUTS,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    last = forms.DateField(
        label=gettext_lazy("To day"),
        input_formats=DATE_INPUTS,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )

    def clean(self):
        data = super().clean()
        first, last = data.get("first"), data.get("last")
        if first and last:
            if (
                first.year < FIRST_YEAR or last.year > LAST_YEAR
            ):  # Vienna's days at the calendar's ends overflow
                raise forms.ValidationError(
                    _("Choose days between %(first)d and %(last)d.")
                    % {"first": FIRST_YEAR, "last": LAST_YEAR},
                    code="out_of_range",
                )
            if first > last:
                raise forms.ValidationError(_("The first day must not be after the last."), code="order")
            if (last - first).days >= service.MOST_DAYS:
                raise forms.ValidationError(
                    _("Choose at most %(count)d days at a time.") % {"count": service.MOST_DAYS},
                    code="too_long",
                )
        return data


def last_month(today: date) -> dict[str, str]:
    """The Vienna calendar month before today's."""
    last = today.replace(day=1) - timedelta(days=1)
    return {"first": f"{last.replace(day=1):%Y-%m-%d}", "last": f"{last:%Y-%m-%d}"}


def accounting_export_view(request: HttpRequest) -> HttpResponseBase:
    if not may_export(request.user):
        raise PermissionDenied
    form = PeriodForm({**last_month(timezone.localdate()), **request.GET.dict()})
    context = {**admin.site.each_context(request), "title": _("Export for the accountant"), "form": form}
    if form.is_valid():
        first, last = form.cleaned_data["first"], form.cleaned_data["last"]
        try:
            found = service.entries(first=first, last=last)
        except service.UnknownVatRate as error:
            form.add_error(
                None,
                _("No revenue account is set for %(percent)s %% VAT (ACCOUNTING_REVENUE_ACCOUNTS).")
                % {"percent": error.percent},
            )
        else:
            if "download" in request.GET:
                response = StreamingHttpResponse(
                    service.lines(found), content_type=f"text/csv; charset={service.ENCODING}"
                )
                response["Content-Disposition"] = f'attachment; filename="{service.file_name(first, last)}"'
                return response
            context |= preview(service.summary(found), first, last)
    return TemplateResponse(request, "admin/accounting/export.html", context)


def preview(summary: service.Summary, first: date, last: date) -> dict:
    names = {
        service.Kind.INVOICE: _("Invoices"),
        service.Kind.CREDIT_NOTE: _("Credit notes"),
        service.Kind.PAYMENT: _("Payments received"),
        service.Kind.REFUND: _("Refunds"),
    }
    return {
        "period": f"{l10n.day(first)} – {l10n.day(last)}",
        "kinds": [
            (names[kind], summary.counts[kind], l10n.money(from_cents(summary.sums[kind]))) for kind in names
        ],
        "vat": [(percent, l10n.money(from_cents(cents))) for percent, cents in summary.vat.items()],
        "rows": summary.rows,
        "query": f"first={first:%Y-%m-%d}&last={last:%Y-%m-%d}&download=1",
    }
