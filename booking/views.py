"""The booking web pages (success, cancel, the sandbox's hosted checkout) and the Stripe webhook."""

import logging

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from booking import payment_updates
from booking.links import cancel_url, reference_from_cancel_token
from booking.models import Booking, BookingStatus
from booking.payments import payment_provider, stripe_provider
from booking.payments.base import WebhookSignatureError
from booking.payments.sandbox import SandboxProvider

logger = logging.getLogger(__name__)


@csrf_exempt
def stripe_webhook(request: HttpRequest) -> JsonResponse:
    """Signed events from Stripe; exempt from CSRF and from the rate limit (DECISIONS §7, §9)."""
    if request.method != "POST":
        response = JsonResponse({"error": "Method not allowed: POST signed Stripe events here."}, status=405)
        response["Allow"] = "POST"
        return response
    if not settings.STRIPE_WEBHOOK_SECRET:
        return JsonResponse({"error": "Stripe webhooks are not configured."}, status=404)
    try:
        event = stripe_provider().parse_webhook(request.body, request.headers.get("Stripe-Signature", ""))
    except WebhookSignatureError:
        logger.warning("Stripe webhook with a bad signature refused")
        return JsonResponse({"error": "Invalid signature."}, status=400)
    payment_updates.apply_event(event)
    return JsonResponse({"received": True})


@require_GET
def success_page(request: HttpRequest) -> HttpResponse:
    booking = get_object_or_404(Booking, provider_session_id=request.GET.get("session_id") or "-")
    booking = payment_updates.reconcile(booking, payment_provider)  # the webhook may still be on its way
    return _page(request, "booking/success.html", booking)


@require_GET
def cancel_page(request: HttpRequest) -> HttpResponse:
    reference = reference_from_cancel_token(request.GET.get("booking", ""))
    booking = get_object_or_404(Booking, reference=reference or "-")
    return _page(request, "booking/cancel.html", booking)


@require_http_methods(["GET", "POST"])
def sandbox_checkout(request: HttpRequest, session_id: str) -> HttpResponse:
    """The sandbox's hosted payment page: the booking, its amount, and Pay / Cancel (CSRF-protected)."""
    provider = _sandbox()
    booking = get_object_or_404(Booking, provider_session_id=session_id, payment_provider=provider.name)
    if request.method == "POST":
        if request.POST.get("action") == "pay":
            payment_updates.apply_event(provider.pay_event(session_id, booking.reference))
            return redirect(f"{settings.PUBLIC_BASE_URL}/booking/success?session_id={session_id}")
        return redirect(cancel_url(booking.reference))
    return _page(request, "booking/sandbox_checkout.html", booking)


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


def _page(request: HttpRequest, template: str, booking: Booking) -> HttpResponse:
    german = booking.locale == "de"
    status = STATUS_DE[BookingStatus(booking.status)] if german else booking.get_status_display()
    with translation.override(booking.locale):
        return render(request, template, {"booking": booking, "de": german, "status": status})
