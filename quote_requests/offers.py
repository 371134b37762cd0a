"""Staff's answer to a quote request: an offer of lines they priced, in one vehicle class, valid until a day;
the traveller gets it by e-mail with a link. Accepting it books the trip at that price, as any booking made
on the page (the terms in force accepted, the same chauffeur's day, invoice and cancellation terms), and
opens the payment page then: a link in a mail never pays an offer that has since expired."""

from django.db import transaction
from django.utils import timezone

from apikit.errors import DomainError
from booking import selectors
from booking.checkout import BookingRequest, PricedRide, ensure_bookable, store_booking
from booking.models import Booking, BookingStatus
from operator_profile import legal
from payments import payment_updates
from payments.checkout import checkout_deadline, open_payment_page
from payments.providers import payment_provider
from places.services import RouteEstimate, estimate_route
from quote_requests import offer_terms, tasks
from quote_requests.models import QuoteRequest, QuoteRequestStatus


def send(request_id: int) -> QuoteRequest:
    """Freeze the offer as staff wrote it, mark it sent and queue its mail; refused (DomainError), nothing
    changes. Sending again (a corrected offer, or a new one after the traveller cancelled) mails the
    traveller again, with the same link, which then books the new one."""
    first_look = QuoteRequest.objects.get(pk=request_id)
    if (problem := offer_terms.why_not_sendable(first_look)) is not None:
        raise DomainError(problem)
    _route(first_look)  # an address no map finds is refused now, not when the traveller books
    with transaction.atomic():
        if first_look.booking_id is not None:  # the booking first, as everywhere: a late payment waits
            selectors.locked_booking(first_look.booking_id)
        request = QuoteRequest.objects.select_for_update().get(pk=request_id)
        if (problem := offer_terms.why_not_sendable(request)) is not None:
            raise DomainError(problem)
        assert request.offer_valid_until is not None  # noqa: S101  (why_not_sendable said so)
        request.sent_offer = {
            "quote": offer_terms.drafted(request).as_record(),
            "valid_until": request.offer_valid_until.isoformat(),
        }
        request.status = QuoteRequestStatus.ANSWERED
        request.offer_sent_at = timezone.now()
        if request.booking is not None:  # unpaid or cancelled: the new offer is booked anew
            request.booking, request.payment_url, request.payment_page_until = None, "", None
        request.save()
        tasks.send_quote_offer.enqueue(request.pk, request.offer_sent_at.isoformat())
    return request


def accept(request_id: int) -> str:
    """The payment page's address for the offer as sent: booked once (a second click while its payment is
    open goes to the same page), and the page opened then. Refused with a DomainError (a PaymentError when
    no page can be opened), nothing is stored."""
    provider = payment_provider()  # no provider, no booking
    first_look = _without_a_dead_page(QuoteRequest.objects.get(pk=request_id))
    waiting = offer_terms.booked_from(first_look)
    route = None if waiting is not None else _route(first_look)  # before any lock: it may ask Google
    with transaction.atomic():
        if first_look.booking_id is not None:  # the booking first, as everywhere
            selectors.locked_booking(first_look.booking_id)
        request = QuoteRequest.objects.select_for_update().get(pk=request_id)
        now_standing = offer_terms.standing(request)
        if not now_standing.acceptable:
            raise DomainError(now_standing.reason, code="offer_not_acceptable")
        booking = now_standing.booking
        if booking is not None and request.payment_url:
            return request.payment_url
        if booking is None:
            booking = _book(request, route or _route(request))
            request.booking, request.payment_url, request.payment_page_until = booking, "", None
            request.save(update_fields=["booking", "payment_url", "payment_page_until", "updated_at"])
    session = open_payment_page(provider, booking)
    QuoteRequest.objects.filter(pk=request_id, booking=booking).update(
        payment_url=session.url, payment_page_until=checkout_deadline(booking.pickup_at)
    )
    now_request = QuoteRequest.objects.get(pk=request_id)
    if now_request.status == QuoteRequestStatus.CLOSED:  # withdrawn while its page opened
        payment_updates.abandon(booking, payment_provider)
        raise DomainError(offer_terms.standing(now_request).reason)
    return session.url


def withdraw(request_id: int) -> None:
    """Staff closed the request: a payment page still open for its booking closes (nobody pays it)."""
    request = QuoteRequest.objects.get(pk=request_id)
    booking = request.booking
    closed = request.status == QuoteRequestStatus.CLOSED
    if closed and booking is not None and booking.status == BookingStatus.PENDING_PAYMENT:
        payment_updates.abandon(booking, payment_provider)


def _without_a_dead_page(request: QuoteRequest) -> QuoteRequest:
    """The request, its booking's payment page closed at the provider if the page has expired by now (the
    provider's word of it may not have come yet): the booking expires, and the offer books anew."""
    booking = offer_terms.booked_from(request)
    until = request.payment_page_until
    if booking is None or booking.status != BookingStatus.PENDING_PAYMENT or until is None:
        return request
    if timezone.now() < until:
        return request
    payment_updates.abandon(booking, payment_provider)
    return QuoteRequest.objects.get(pk=request.pk)


def _route(request: QuoteRequest) -> RouteEstimate:
    destination = request.destination or request.origin  # as directed: routed from the pickup to itself
    return estimate_route(origin=request.origin, destination=destination, pickup=request.pickup_at)


def _book(request: QuoteRequest, route: RouteEstimate) -> Booking:
    offer = request.offer
    assert offer is not None  # noqa: S101  (standing() allowed only an offer sent)
    ensure_bookable(request.pickup_at)
    ride = BookingRequest(
        origin=request.origin,
        destination=request.destination,
        pickup=request.pickup_at,
        vehicle_class=offer.vehicle_class,
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
        PricedRide(route, None, offer.quote),
        channel=request.channel,
        api_token_id=request.api_token_id,
        accepted_terms=legal.current(legal.Kind.TERMS),
        terms_accepted_at=timezone.now(),
    )
