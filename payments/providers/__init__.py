"""The active payment provider, chosen by PAYMENT_PROVIDER (docs/decisions.md §2)."""

from django.conf import settings

from payments.providers.base import PaymentError, PaymentProvider


def payment_provider() -> PaymentProvider:
    if settings.PAYMENT_PROVIDER == "stripe":
        return stripe_provider()
    if settings.PAYMENT_PROVIDER == "sandbox":
        from payments.providers.sandbox import SandboxProvider

        return SandboxProvider(public_base_url=settings.PUBLIC_BASE_URL, secret=settings.SECRET_KEY)
    # 503: the service cannot take payments now, and nothing was stored (the legacy doors keep the 500).
    raise PaymentError(
        "payment provider not configured",
        status=503,
        hint="Checkout is closed: no payment provider is set up. Nothing was booked; contact the operator.",
    )


def stripe_provider():
    """Stripe, whatever PAYMENT_PROVIDER says: its webhooks keep arriving for sessions already open."""
    from payments.providers.stripe import StripeProvider

    return StripeProvider(
        secret_key=settings.STRIPE_SECRET_KEY,
        webhook_secret=settings.STRIPE_WEBHOOK_SECRET,
        api_base=settings.STRIPE_API_BASE,
    )
