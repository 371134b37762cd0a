"""A quote request's e-mails: the traveller is told it arrived and what happens next, in their language; the
operator gets a copy with the request and its page in the back office."""

import re

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from booking.notifications import deliver, one_line, sender, unlinked
from booking.presentation import quote_vat_note, vehicle_name
from operator_profile import legal
from operator_profile.models import CONTROL_CHARACTERS
from operator_profile.services import operator_branding
from quote_requests.models import QuoteRequest
from sitekit.l10n import money

OFFER_SUBJECTS = {
    "en": "Our offer for your request {reference}",
    "de": "Unser Angebot zu Ihrer Anfrage {reference}",
}
SUBJECTS = {
    "en": "We received your quote request {reference}",
    "de": "Ihre Angebotsanfrage {reference} ist eingegangen",
}
OPERATOR_SUBJECT = "Quote request {reference}: {passengers} passengers"  # nothing the traveller typed
# What the traveller typed: no mail client may turn it into a link.
TYPED = ("name", "origin", "destination", "details", "phone")
RECEIVED = "emails/quote_request_received.txt"


def send_received(request_id: int, *, acknowledge: bool = True) -> None:
    request = QuoteRequest.objects.filter(pk=request_id).first()
    if request is None:  # erased (the traveller's wish, or its time ran out) before its mail went: none goes
        return
    received = {
        "passengers": request.passengers,
        "luggage": request.luggage,
        "vehicle": vehicle_name(request.vehicle_class) if request.vehicle_class else "",
        "email": request.email,
        "admin_url": settings.PUBLIC_BASE_URL
        + reverse("admin:quote_requests_quoterequest_change", args=[request.pk]),
    }
    if acknowledge:
        subject = SUBJECTS[_language(request)].format(reference=request.reference)
        deliver(_message(request, RECEIVED, request.email, subject, {**received, "for_operator": False}))
    if settings.OPERATOR_EMAIL:
        subject = OPERATOR_SUBJECT.format(
            reference=request.reference,
            passengers=request.passengers if request.passengers is not None else "?",
        )
        operator_copy = {**received, "for_operator": True}
        deliver(_message(request, RECEIVED, settings.OPERATOR_EMAIL, subject, operator_copy, language="en"))


def send_offer(request_id: int) -> None:
    """The offer, in the traveller's language: the trip, the lines and total, the validity and the link that
    books and pays it."""
    request = QuoteRequest.objects.filter(pk=request_id).first()
    offer = request.offer if request is not None else None
    if request is None or offer is None:  # erased or withdrawn before its mail went
        return
    quote = offer.quote
    with translation.override(_language(request)):  # the VAT note's words
        offered = {
            "vehicle": vehicle_name(offer.vehicle_class),
            "lines": [{"label": unlinked(line.label), "amount": money(line.amount)} for line in quote.lines],
            "total": money(quote.price),
            "vat_note": quote_vat_note(quote),
            "valid_until": offer.valid_until,
            "offer_url": offer.url,
        }
    subject = OFFER_SUBJECTS[_language(request)].format(reference=request.reference)
    deliver(_message(request, "emails/quote_offer.txt", request.email, subject, offered))


def _language(request: QuoteRequest) -> str:
    return "de" if request.locale == "de" else "en"


def _message(
    request: QuoteRequest, template: str, address: str, subject: str, context: dict, *, language: str = ""
) -> EmailMultiAlternatives:
    """A mail about the request in `language` (the traveller's by default): `context` beside the trip as
    asked, the operator's details and the legal links. The traveller answers the operator; the operator's
    copy answers the traveller."""
    language = language or _language(request)
    operator = operator_branding()
    with translation.override(language):
        text = render_to_string(
            template,
            {
                "request": {name: unlinked(getattr(request, name)) for name in TYPED},
                "reference": request.reference,
                "pickup": timezone.localtime(request.pickup_at),
                "operator": operator,
                "site_url": f"{settings.PUBLIC_BASE_URL}/{language}/",
                "legal_links": legal.links(language),
                **context,
            },
        )
    message = EmailMultiAlternatives(one_line(subject), text, from_email=sender(), to=[address])
    # addresses with a line break, stored before the forms refused them, cannot be a header: left out
    reply_to = request.email if context.get("for_operator") else operator.email
    if reply_to and not re.search(CONTROL_CHARACTERS, reply_to):
        message.reply_to = [reply_to]
    return message
