"""Signed Stripe webhook deliveries, as Stripe sends them, for the tests of the webhook's events."""

import hashlib
import hmac
import json
import time

WEBHOOK = "/api/payments/stripe/webhook"
SECRET = "whsec_test"
API = "https://stripe.test"


def use_stripe(settings) -> None:
    settings.PAYMENT_PROVIDER = "stripe"
    settings.STRIPE_SECRET_KEY = "sk_test_123"
    settings.STRIPE_WEBHOOK_SECRET = SECRET
    settings.STRIPE_API_BASE = API
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"


def event_payload(event_type: str, item: dict, event_id: str = "evt_1") -> bytes:
    return json.dumps(
        {
            "id": event_id,
            "object": "event",
            "type": event_type,
            "api_version": "2025-01-27.acacia",
            "created": int(time.time()),
            "data": {"object": item},
        }
    ).encode()


def signed(payload: bytes, secret: str = SECRET, at: int | None = None) -> str:
    at = at or int(time.time())
    signature = hmac.new(secret.encode(), f"{at}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={at},v1={signature}"


def deliver(client, payload: bytes, signature: str | None = None):
    return client.post(
        WEBHOOK, payload, content_type="application/json", HTTP_STRIPE_SIGNATURE=signature or signed(payload)
    )
