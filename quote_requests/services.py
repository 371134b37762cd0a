"""Asking for a quote: the request is checked (a pickup ahead, a class offered, a phone a chauffeur can call),
stored under a reference of its own, and the traveller and the operator are told by e-mail (queued jobs);
staff answer it from the back office."""

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from access.models import ApiToken
from apikit.errors import DomainError
from booking import availability, ownership
from booking.lead_time import Reason
from pricing import services as pricing
from quote_requests import tasks
from quote_requests.models import QuoteRequest, QuoteRequestStatus
from sitekit import phones, references

NOT_FOUND = "No quote request {reference} of yours."  # the API's words
EMAIL_NOT_YOURS = "This token asks for {email} only: send that e-mail address."
RETRY_WINDOW = timedelta(minutes=10)  # a request asked again within it is its retry (retries.py)
PREFIX = "QR-"  # a booking's is CB-: said over the phone, the two are never confused


@dataclass(frozen=True)
class QuoteAsked:
    origin: str
    pickup: datetime
    name: str
    email: str
    destination: str = ""
    passengers: int | None = None
    luggage: int | None = None
    vehicle_class: str = ""
    details: str = ""
    phone: str = ""
    locale: str = "en"
    reason: str = ""  # the code of why the tariff could not price it, where a quote said so


def request_quote(asked: QuoteAsked, *, channel: str, api_token_id: int | None = None) -> QuoteRequest:
    """Store the request and queue its e-mails; refused, it stores nothing. Asked with a token, the traveller
    gets an acknowledgement; the booking page, which anyone may call, shows it on screen instead (its
    e-mail goes to no address it was not asked by)."""
    if not asked.email.strip():
        raise DomainError(_("Give the e-mail address the offer goes to."), field="email")
    # The lead-time rule's outer bounds (not its minimum lead: staff may still quote a ride soon), as an
    # offer becomes a booking: as far ahead as one may be booked.
    verdict = availability.check_availability(pickup=asked.pickup)
    if verdict.reason is Reason.IN_PAST:
        raise DomainError(_("The pickup is in the past: choose a time ahead."), field="pickup")
    if verdict.reason is Reason.TOO_FAR_AHEAD:
        raise DomainError(
            format_lazy(
                _("We take bookings up to {days} days ahead: please ask again nearer the time."),
                days=availability.lead_time_rules().max_ahead.days,
            ),
            field="pickup",
        )
    offered = {offer.code for offer in pricing.offered_vehicle_classes()}
    if asked.vehicle_class and asked.vehicle_class not in offered:
        raise DomainError(
            format_lazy(
                _("Vehicle class {code!r} is not offered; choose one of: {offered}."),
                code=asked.vehicle_class,
                offered=", ".join(sorted(offered)),
            ),
            field="vehicle_class",
        )
    phone = phones.e164(asked.phone) if asked.phone.strip() else ""

    def create(reference: str) -> QuoteRequest:
        request = QuoteRequest.objects.create(
            reference=reference,
            origin=asked.origin.strip(),
            destination=asked.destination.strip(),
            pickup_at=asked.pickup,
            passengers=asked.passengers,
            luggage=asked.luggage,
            vehicle_class=asked.vehicle_class,
            details=asked.details.strip(),
            reason=asked.reason,
            name=asked.name.strip(),
            email=asked.email.strip(),
            phone=phone,
            locale=asked.locale,
            channel=channel,
            api_token_id=api_token_id,
        )
        tasks.send_quote_request_received.enqueue(request.pk, acknowledge=api_token_id is not None)
        return request

    return references.stored_under_a_free_one(create, PREFIX)


def in_their_name(asked: QuoteAsked, token: ApiToken | None) -> QuoteAsked:
    """A token acting for a traveller asks with the traveller's address (the offer goes there), and refuses
    another, as it books (booking/ownership.py)."""
    if token is None or not token.acts_for:
        return asked
    if asked.email.strip() and not ownership.same_address(asked.email, token.acts_for):
        raise DomainError(EMAIL_NOT_YOURS.format(email=token.acts_for), code="email_not_yours", field="email")
    return replace(asked, email=token.acts_for)


def find(reference: str, *, token: ApiToken) -> QuoteRequest:
    """The request, for the token that made it (or another of its OAuth grant) or a token acting for the
    traveller who asked; an unknown reference and someone else's request get the same answer."""
    request = QuoteRequest.objects.filter(reference=reference.strip().upper()).first()
    if request is None or not ownership.opens(request, token=token):
        raise DomainError(NOT_FOUND.format(reference=reference.strip()), code="not_found")
    return request


def new_reference() -> str:
    return references.drawn(PREFIX)


def open_requests() -> int:
    """How many requests wait for staff's answer (the dispatch board says so): those whose trip is still
    ahead."""
    return QuoteRequest.objects.filter(status=QuoteRequestStatus.OPEN, pickup_at__gte=timezone.now()).count()
