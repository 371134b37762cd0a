"""Check out: store the booking (booking/checkout.py checks, routes and prices the ride) and open the
payment provider's hosted page for it. No provider, no booking; a provider failure keeps the booking."""

import hashlib
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from booking import presentation, trips
from booking.availability import lead_time_rules
from booking.checkout import BookingRequest, CheckoutResult
from booking.links import cancel_url
from booking.models import Booking, BookingChannel
from operator_profile import legal
from payments import ledger
from payments.providers import payment_provider
from payments.providers.base import CheckoutRequest, CheckoutSession, PaymentError, PaymentProvider
from pricing.money import CURRENCY

logger = logging.getLogger(__name__)

# Stripe keeps a checkout page open between 30 minutes and 24 hours; a margin on the short end.
CHECKOUT_MIN_OPEN, CHECKOUT_MAX_OPEN = timedelta(minutes=31), timedelta(hours=24)


def start_checkout(
    *,
    amount_cents: int,
    ride: BookingRequest,
    channel: str = BookingChannel.WEBSITE,
    api_token_id: int | None = None,
) -> CheckoutResult:
    """`channel` records where the booking came from; `api_token_id` the token that booked it (it may read
    and cancel the booking later). The booking is made under the terms published now: the booking page has
    its traveller tick them first; an API client or agent accepts them by checking out (README "Legal
    pages")."""
    provider = payment_provider()  # before anything is stored: no provider, no booking
    trip = trips.priced_trip(ride, amount_cents)
    # Stored (committed) before the provider is asked, so a provider failure loses nothing.
    booking = trips.store_trip(
        trip,
        channel=channel,
        api_token_id=api_token_id,
        accepted_terms=legal.current(legal.Kind.TERMS),
        terms_accepted_at=timezone.now(),
    )
    return CheckoutResult(booking=booking, session=open_payment_page(provider, booking))


def open_payment_page(provider: PaymentProvider, booking: Booking) -> CheckoutSession:
    """The provider's hosted checkout page for a stored booking (a return trip's way out: one page for both
    rides); from now on its payment waits in the ledger with the provider's session. A provider failure
    leaves the booking stored (pending payment) and is raised."""
    rides = trips.legs(booking)
    deadline = checkout_deadline(booking.pickup_at)
    # A page opened again (its first answer lost) closes later: the provider refuses a key it saw with
    # other parameters, so the key names the deadline too. A page whose answer never came has a link nobody
    # was given, and closes on its own.
    key = f"checkout-{booking.reference}" + (f"-{int(deadline.timestamp())}" if deadline else "")
    try:
        session = provider.create_checkout_session(
            CheckoutRequest(
                reference=booking.reference,
                amount_cents=trips.price_cents(rides),
                currency=booking.currency.lower(),
                description=" + ".join(
                    f"{ride.reference}: {ride.origin} → {ride.destination or 'as directed'}" for ride in rides
                )
                + f" ({presentation.vehicle_name(booking.vehicle_class)})",
                customer_email=booking.email or None,
                locale=booking.locale,
                success_url=f"{settings.PUBLIC_BASE_URL}/booking/success?session_id={{CHECKOUT_SESSION_ID}}",
                cancel_url=cancel_url(booking.reference),
                idempotency_key=key,
                expires_at=deadline,
            )
        )
    except PaymentError:
        logger.error("Checkout of %s failed at %s; the booking is kept", booking.reference, provider.name)
        raise
    with transaction.atomic():
        ledger.checkout_opened(
            trips.locked_legs(booking), provider=provider.name, session_id=session.session_id
        )
    return session


def checkout_deadline(pickup: datetime | None) -> datetime | None:
    """When the checkout page must close: before the pickup's lead time runs out, within the window Stripe
    accepts (30 minutes to 24 hours from now); None leaves Stripe's own 24 hours."""
    if pickup is None:
        return None
    now = timezone.now()
    deadline = pickup - lead_time_rules().minimum_lead
    return min(max(deadline, now + CHECKOUT_MIN_OPEN), now + CHECKOUT_MAX_OPEN)


def legacy_payment_intent(*, amount_cents: int, client: str, client_key: str):
    """The deprecated card flow. A client's Idempotency-Key is scoped to that client: Stripe's keys are
    account-wide, and a guessed key must never return another customer's client secret."""
    scoped = (
        hashlib.sha256(f"{client}\x1f{client_key}\x1f{amount_cents}".encode()).hexdigest()
        if client_key
        else ""
    )
    return payment_provider().create_payment_intent(
        amount_cents=amount_cents, currency=CURRENCY.lower(), idempotency_key=f"pi-{scoped}" if scoped else ""
    )
