"""Staff's answer to a quote request: an offer of lines they priced, in one vehicle class, valid until a day;
the traveller gets it by e-mail with a link. Accepting it books the trip at that price, as any booking made
on the page (the terms in force accepted, the same chauffeur's day, invoice and cancellation terms), and
opens the payment page then: a link in a mail never pays an offer that has since expired."""

from django.db import transaction
from django.utils import timezone

from apikit.errors import DomainError
from booking.checkout import BookingRequest, PricedRide, ensure_bookable, store_booking
from booking.models import Booking
from operator_profile import legal
from payments.checkout import open_payment_page
from payments.providers import payment_provider
from payments.providers.base import CheckoutSession
from places.services import estimate_route
from quote_requests import offer_terms, tasks
from quote_requests.models import QuoteRequest, QuoteRequestStatus


def send(request_id: int) -> QuoteRequest:
    """Mark the offer sent and queue its mail; refused (DomainError), nothing changes. Sending again (a
    corrected offer) mails the traveller again, with the same link."""
    with transaction.atomic():
        request = QuoteRequest.objects.select_for_update().get(pk=request_id)
        problem = offer_terms.why_not_sendable(request)
        if problem is not None:
            raise DomainError(problem)
        request.status = QuoteRequestStatus.ANSWERED
        request.offer_sent_at = timezone.now()
        request.save(update_fields=["status", "offer_sent_at", "updated_at"])
        tasks.send_quote_offer.enqueue(request.pk, request.offer_sent_at.isoformat())
    return request


def accept(request_id: int) -> CheckoutSession:
    """Book the offer (once: accepting again while its payment is open reopens that booking's page) and open
    its payment page. Refused with a DomainError, nothing is stored."""
    provider = payment_provider()  # no provider, no booking
    with transaction.atomic():
        request = QuoteRequest.objects.select_for_update().get(pk=request_id)
        now_standing = offer_terms.standing(request)
        if not now_standing.acceptable:
            raise DomainError(now_standing.reason, code="offer_not_acceptable")
        booking = now_standing.booking or _book(request)
        if request.booking_id != booking.pk:
            request.booking = booking
            request.save(update_fields=["booking", "updated_at"])
    return open_payment_page(provider, booking)


def _book(request: QuoteRequest) -> Booking:
    ensure_bookable(request.pickup_at)
    destination = request.destination or request.origin  # as directed: routed from the pickup to itself
    route = estimate_route(origin=request.origin, destination=destination, pickup=request.pickup_at)
    ride = BookingRequest(
        origin=request.origin,
        destination=request.destination,
        pickup=request.pickup_at,
        vehicle_class=request.offer_vehicle_class,
        name=request.name,
        email=request.email,
        phone=request.phone,
        locale=request.locale,
        notes=request.details,
        passengers=request.passengers,
        luggage=request.luggage,
        submitted={"quoteRequest": request.reference, "locale": request.locale},
    )
    return store_booking(
        ride,
        PricedRide(route, None, offer_terms.priced(request)),
        channel=request.channel,
        api_token_id=request.api_token_id,
        accepted_terms=legal.current(legal.Kind.TERMS),
        terms_accepted_at=timezone.now(),
    )
