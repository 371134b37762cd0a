from django.conf import settings
from django.core import checks


@checks.register(checks.Tags.caches, deploy=True)
def shared_cache_configured(app_configs, **kwargs):
    """Rate-limit counters and the tariff version live in the cache: without Redis, each worker is alone."""
    if settings.REDIS_URL:
        return []
    return [
        checks.Warning(
            "REDIS_URL is not set: rate limits and tariff updates are not shared between server processes.",
            hint="Set REDIS_URL (e.g. redis://redis:6379/0) for any deployment with more than one process.",
            id="chauffeur.W001",
        )
    ]


@checks.register(deploy=True)
def payments_configured(app_configs, **kwargs):
    """Payments that cannot complete are worse than a loud warning at deploy time. (The sandbox with debug
    off, payments that cost nothing, never starts: see settings.)"""
    if settings.PAYMENT_PROVIDER != "stripe" or settings.STRIPE_WEBHOOK_SECRET:
        return []
    return [
        checks.Warning(
            "PAYMENT_PROVIDER is stripe but STRIPE_WEBHOOK_SECRET is not set: asynchronous payments and "
            "customers who close the tab before the success page are never marked paid.",
            hint="Create the webhook endpoint in Stripe and set STRIPE_WEBHOOK_SECRET.",
            id="chauffeur.W002",
        )
    ]
