"""The booking web pages: success, cancel, the customer's "manage my booking", and the sandbox's hosted
checkout."""

import logging

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.html import escape
from django.views.decorators.http import require_GET, require_http_methods

from booking import cancellation, lifecycle, payment_updates, selectors
from booking.links import cancel_url, manage_url, reference_from_cancel_token, reference_from_manage_token
from booking.models import Booking, BookingStatus
from booking.payments import payment_provider
from booking.payments.sandbox import SandboxProvider
from chauffeur.api.problems import Problem
from chauffeur.errors import DomainError
from pricing.money import from_cents

logger = logging.getLogger(__name__)


SUCCESS_PATH = "/booking/success"


def too_many_requests(problem: Problem) -> HttpResponse:
    """The success page's answer to a client over the rate limit: a short page, not JSON."""
    response = HttpResponse(
        "<!doctype html><title>Too many requests</title><h1>Too many requests</h1>"
        f"<p>{escape(problem.detail)}</p>",
        status=problem.http_status,
    )
    for name, value in problem.headers.items():
        response[name] = value
    return response


@require_GET
def success_page(request: HttpRequest) -> HttpResponse:
    booking = selectors.booking_for_session(request.GET.get("session_id") or "-")
    if booking is None:
        raise Http404("No booking has this checkout session.")
    booking = payment_updates.reconcile(booking, payment_provider)  # the webhook may still be on its way
    return _page(request, "booking/success.html", booking)


@require_GET
def cancel_page(request: HttpRequest) -> HttpResponse:
    reference = reference_from_cancel_token(request.GET.get("booking", ""))
    booking = selectors.booking_for_reference(reference or "-")
    if booking is None:
        raise Http404("No such booking.")
    return _page(request, "booking/cancel.html", booking)


@require_http_methods(["GET", "POST"])
def manage_page(request: HttpRequest) -> HttpResponse:
    """The customer's own page of a booking, opened by the signed link of the success page and the
    e-mails: its state, the chauffeur once assigned, and the cancel where the policy allows it."""
    booking = selectors.booking_for_reference(
        reference_from_manage_token(request.GET.get("booking", "")) or "-"
    )
    if booking is None:
        raise Http404("No such booking.")
    outcome = None
    if request.method == "POST" and request.POST.get("action") == "cancel":
        try:
            booking = cancellation.cancel(booking.pk, actor="customer (manage page)")
            outcome = "cancelled"
        except DomainError as refusal:  # the policy or the payment provider said no: nothing changed
            logger.info("Cancel of %s from its page refused: %s", booking.reference, refusal.code)
            outcome = "refused"
    return _page(request, "booking/manage.html", booking, state=lifecycle.state_of(booking), outcome=outcome)


@require_http_methods(["GET", "POST"])
def sandbox_checkout(request: HttpRequest, session_id: str) -> HttpResponse:
    """The sandbox's hosted payment page: the booking, its amount, and Pay / Cancel (CSRF-protected). A
    price difference after a change has a page of its own, which returns to the customer's booking page."""
    provider = _sandbox()
    booking = selectors.booking_for_session(session_id, provider=provider.name)
    surcharge = None if booking is not None else selectors.surcharge_for_session(session_id)
    if surcharge is not None:
        booking = surcharge.booking
    if booking is None:
        raise Http404("The sandbox knows no such checkout session.")
    amount_cents = surcharge.amount_cents if surcharge else booking.amount_cents
    if request.method == "POST":
        if request.POST.get("action") == "pay":
            paid = provider.pay_event(
                session_id=session_id,
                reference=booking.reference,
                amount_cents=amount_cents,
                currency=booking.currency,
            )
            payment_updates.apply_event(paid)
            if surcharge is None:
                return redirect(f"{settings.PUBLIC_BASE_URL}/booking/success?session_id={session_id}")
        return redirect(manage_url(booking.reference) if surcharge else cancel_url(booking.reference))
    return _page(request, "booking/sandbox_checkout.html", booking, amount=from_cents(amount_cents))


def _sandbox() -> SandboxProvider:
    if settings.PAYMENT_PROVIDER != "sandbox":
        raise Http404("The sandbox is not the active payment provider.")
    return payment_provider()


STATUS_DE = {
    BookingStatus.PENDING_PAYMENT: "Zahlung ausstehend",
    BookingStatus.PAID: "bezahlt",
    BookingStatus.CONFIRMED: "bestätigt",
    BookingStatus.COMPLETED: "abgeschlossen",
    BookingStatus.CANCELLED: "storniert",
    BookingStatus.EXPIRED: "abgelaufen",
    BookingStatus.PAYMENT_FAILED: "Zahlung fehlgeschlagen",
}


def _page(request: HttpRequest, template: str, booking: Booking, **extra) -> HttpResponse:
    german = booking.locale == "de"
    status = STATUS_DE[BookingStatus(booking.status)] if german else booking.get_status_display()
    context = {
        "booking": booking,
        "de": german,
        "status": status,
        "manage_url": manage_url(booking.reference),
    }
    with translation.override(booking.locale):
        return render(request, template, {**context, **extra})
