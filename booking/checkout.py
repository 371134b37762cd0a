"""Checkout (DECISIONS §9): the server prices the ride itself, stores the booking, then asks the payment
provider for a hosted checkout page. The amount charged is always the server's own price."""

import hashlib
import logging
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError
from django.utils import timezone

from booking.links import cancel_url
from booking.models import Booking
from booking.payments import payment_provider
from booking.payments.base import CheckoutRequest, CheckoutSession, PaymentError
from booking.services import check_availability, lead_time_rules
from chauffeur.errors import DomainError
from places.services import estimate_route
from pricing import services as pricing
from pricing.serializers import PriceOutput

logger = logging.getLogger(__name__)

REFERENCE_ALPHABET = "ACDEFGHJKLMNPQRTUVWXY34679"  # no 0/O, 1/I/L, 2/Z, 5/S, 8/B: read out over a phone
REFERENCE_LENGTH = 6
CURRENCY = "EUR"
CHECKOUT_MIN_OPEN, CHECKOUT_MAX_OPEN = (
    timedelta(minutes=31),
    timedelta(hours=24),
)  # Stripe's limits, with a margin


@dataclass(frozen=True)
class BookingRequest:
    origin: str
    destination: str
    pickup: datetime | None = None
    vehicle_class: str = "executive"
    booking_type: str = "distance"
    duration_hours: Decimal | None = None
    tour_name: str = ""
    name: str = ""
    email: str = ""
    phone: str = ""
    locale: str = "en"
    notes: str = ""
    flight_number: str = ""
    water_choice: str = ""
    flight_data: dict | None = None
    submitted: dict = field(default_factory=dict)  # the booking data as received, kept for the record


@dataclass(frozen=True)
class CheckoutResult:
    booking: Booking
    session: CheckoutSession


def start_checkout(*, amount_cents: int, ride: BookingRequest) -> CheckoutResult:
    provider = payment_provider()
    if ride.pickup is not None:
        availability = check_availability(pickup=ride.pickup)
        if not availability.available:
            earliest = availability.earliest_pickup.isoformat(timespec="minutes")
            raise DomainError(
                f"This pickup cannot be booked ({availability.reason}); the earliest possible is {earliest}.",
                code="lead_time",
                field="bookingData.pickupDatetime",
                extra={"earliestPickup": availability.earliest_pickup.isoformat(timespec="seconds")},
            )
    route = estimate_route(origin=ride.origin, destination=ride.destination, pickup=ride.pickup)
    tour_slug = pricing.tour_slug_for(ride.tour_name) if ride.tour_name else None
    if ride.tour_name and tour_slug is None:
        raise DomainError(
            f"There is no tour {ride.tour_name!r}.", code="unknown_tour", field="bookingData.tourName"
        )
    try:
        quote = pricing.quote_price(
            vehicle_class=ride.vehicle_class,
            distance_km=route.distance_km,
            booking_type=ride.booking_type,
            in_zone_a=route.in_zone_a,
            duration_hours=ride.duration_hours,
            tour_slug=tour_slug,
        )
    except DomainError as refusal:  # name the field where the caller sent it
        if refusal.field:
            refusal.field = f"bookingData.{refusal.field}"
        raise
    expected = int(quote.price * 100)
    if amount_cents != expected:
        raise DomainError(
            f"The amount must be {expected} cents ({quote.price} EUR) for this ride, not {amount_cents}.",
            code="amount_mismatch",
            field="amount",
            extra={"expectedAmount": expected},
        )
    booking = _store(ride, route, quote, tour_slug, provider.name)  # committed before the provider is asked
    try:
        session = provider.create_checkout_session(
            CheckoutRequest(
                reference=booking.reference,
                amount_cents=expected,
                currency=CURRENCY.lower(),
                description=f"{booking.reference}: {ride.origin} → {ride.destination} ({ride.vehicle_class})",
                customer_email=ride.email or None,
                locale=ride.locale,
                success_url=f"{settings.PUBLIC_BASE_URL}/booking/success?session_id={{CHECKOUT_SESSION_ID}}",
                cancel_url=cancel_url(booking.reference),
                idempotency_key=f"checkout-{booking.reference}",
                expires_at=checkout_deadline(ride.pickup),
            )
        )
    except PaymentError:
        logger.error("Checkout of %s failed at %s; the booking is kept", booking.reference, provider.name)
        raise
    Booking.objects.filter(pk=booking.pk).update(provider_session_id=session.session_id)
    booking.provider_session_id = session.session_id
    return CheckoutResult(booking=booking, session=session)


def checkout_deadline(pickup: datetime | None) -> datetime | None:
    """When the checkout page must close: before the pickup's lead time runs out, within the window Stripe
    accepts (30 minutes to 24 hours from now); None leaves Stripe's own 24 hours."""
    if pickup is None:
        return None
    now = timezone.now()
    deadline = pickup - lead_time_rules().minimum_lead
    return min(max(deadline, now + CHECKOUT_MIN_OPEN), now + CHECKOUT_MAX_OPEN)


def _store(ride: BookingRequest, route, quote, tour_slug: str | None, provider_name: str) -> Booking:
    for _ in range(5):
        try:
            return Booking.objects.create(
                reference=new_reference(),
                origin=ride.origin,
                destination=ride.destination,
                pickup_at=ride.pickup,
                vehicle_class=ride.vehicle_class,
                booking_type=ride.booking_type,
                duration_hours=ride.duration_hours,
                tour_slug=tour_slug or "",
                distance_km=route.distance_km,
                duration_s=route.duration_s,
                estimated_arrival=route.estimated_arrival,
                in_zone_a=route.in_zone_a,
                price=PriceOutput(quote).data,
                amount_cents=int(quote.price * 100),
                currency=CURRENCY,
                name=ride.name,
                email=ride.email,
                phone=ride.phone,
                locale=ride.locale,
                notes=ride.notes,
                flight_number=ride.flight_number,
                water_choice=ride.water_choice,
                tour_name=ride.tour_name,
                flight_data=ride.flight_data,
                booking_data=ride.submitted,
                payment_provider=provider_name,
            )
        except IntegrityError:  # the same reference twice: one in 300 million; draw again
            continue
    raise RuntimeError("Could not draw a free booking reference")


def new_reference() -> str:
    return "CB-" + "".join(secrets.choice(REFERENCE_ALPHABET) for _ in range(REFERENCE_LENGTH))


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
