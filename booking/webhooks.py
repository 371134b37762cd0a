"""The payment provider's webhook: signed Stripe events (docs/decisions.md §9)."""

import logging

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from booking import payment_updates
from booking.payments import stripe_provider
from booking.payments.base import WebhookSignatureError

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
    payment_updates.apply_event(event)
    return JsonResponse({"received": True})
