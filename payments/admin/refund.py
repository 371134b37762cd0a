"""The refund page of a booking, in two steps: staff type the amount (never filled in for them), then a
confirmation states the booking, the amount and how the money goes back before anything moves. The
confirmation carries a one-time key (payments/refund_requests.py): sent twice, it refunds once."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from apikit.errors import DomainError
from booking import history
from booking.models import Booking
from payments import ledger, refund_requests, refunds
from payments.admin.forms import ConfirmRefundForm, RefundForm
from payments.models import Refund
from pricing.money import from_cents, to_cents
from sitekit import l10n


def refund_view(request: HttpRequest, booking: Booking, context: dict) -> HttpResponse:
    if request.method != "POST":
        return _page(request, booking, context, RefundForm())
    if "confirm" not in request.POST:
        form = RefundForm(request.POST)
        if not form.is_valid():
            return _page(request, booking, context, form)
        return _page(request, booking, context, form, key=refund_requests.new_key())
    form = ConfirmRefundForm(request.POST)
    if not form.is_valid():  # a tampered or stale confirmation: shown again, nothing moved
        return _page(request, booking, context, form)
    data = form.cleaned_data
    try:
        requested = refund_requests.refund_once(
            booking.pk,
            to_cents(data["amount"]),
            key=data["key"],
            reason=data["reason"],
            actor=history.staff(request.user),
            requested_by=request.user,
            manual=data["manual"],
        )
    except DomainError as refusal:  # the service said no: nothing changed
        messages.error(request, f"{booking.reference}: {refusal.in_words()}")
    else:
        if requested.made_now:
            messages.success(request, " ".join(made(booking, refund) for refund in requested.refunds))
        else:
            messages.warning(
                request,
                _("%s: this refund was confirmed before (sent twice); nothing more was refunded.")
                % booking.reference,
            )
    return redirect(reverse("admin:booking_booking_change", args=[booking.pk]))


def _page(request, booking: Booking, context: dict, form, key: str | None = None) -> TemplateResponse:
    refundable = from_cents(refunds.refundable_cents(booking))
    context = {
        **context,
        "title": _("Refund of booking %s") % booking.reference,
        "booking": booking,
        "form": form,
        "refundable": l10n.money(refundable, booking.currency),
        "holding": [
            (payment, l10n.money(from_cents(cents), booking.currency))
            for payment, cents in ledger.open_payments(booking, provider_only=False)
        ],
    }
    if key is not None:
        data = form.cleaned_data
        context |= {
            "key": key,
            "amount": f"{data['amount']:.2f}",  # the hidden field: a form that reads in either language
            "amount_shown": l10n.money(data["amount"], booking.currency),
            "method": method(booking, manual=data["manual"]),
            "reason": data["reason"],
            "manual": data["manual"],
        }
    return TemplateResponse(request, "admin/booking/booking/refund.html", context)


def method(booking: Booking, *, manual: bool) -> str:
    """How the money goes back, as the refund service will do it."""
    if manual:
        return _("paid back by staff outside the payment provider (cash, bank transfer): recorded as done")
    if refunds.through_provider(booking):
        return _("through the payment provider, to the customer's card")
    return _(
        "owed: the booking was not paid online; staff pay it back and then confirm it on the booking page"
    )


def made(booking: Booking, refund: Refund) -> str:
    how = _("through the payment provider") if refund.method == Refund.Method.PROVIDER else _("by staff")
    return _("%(ref)s: refund of %(amount)s %(how)s (%(state)s).") % {
        "ref": booking.reference,
        "amount": l10n.money(refund.amount, booking.currency),
        "how": how,
        "state": refund.get_status_display(),
    }
