"""The payment provider's webhook: signed Stripe events (docs/decisions.md §9)."""

import logging

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from payments import payment_updates
from payments.providers import stripe_provider
from payments.providers.base import PaymentError, WebhookSignatureError

logger = logging.getLogger(__name__)


@csrf_exempt
def stripe_webhook(request: HttpRequest) -> JsonResponse:
    """Signed events from Stripe; exempt from CSRF and from the rate limit (docs/decisions.md §7, §9)."""
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
    try:
        payment_updates.apply_event(event, provider=stripe_provider)
    except PaymentError:  # nothing was kept: Stripe delivers the event again later
        logger.warning("Stripe event %s left for a retry: Stripe could not be asked", event.event_id)
        return JsonResponse({"error": "Stripe could not be asked; retry later."}, status=503)
    return JsonResponse({"received": True})
