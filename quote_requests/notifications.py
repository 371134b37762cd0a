"""A quote request's e-mails: the traveller is told it arrived and what happens next, in their language; the
operator gets a copy with the request and its page in the back office."""

import re

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from booking.notifications import deliver, one_line, sender, unlinked
from booking.presentation import number, vehicle_name
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


def send_received(request_id: int, *, acknowledge: bool = True) -> None:
    request = QuoteRequest.objects.filter(pk=request_id).first()
    if request is None:  # erased (the traveller's wish, or its time ran out) before its mail went: none goes
        return
    language = "de" if request.locale == "de" else "en"
    if acknowledge:
        subject = SUBJECTS[language].format(reference=request.reference)
        deliver(_message(request, language, request.email, subject))
    if settings.OPERATOR_EMAIL:
        subject = OPERATOR_SUBJECT.format(
            reference=request.reference,
            passengers=request.passengers if request.passengers is not None else "?",
        )
        deliver(_message(request, "en", settings.OPERATOR_EMAIL, subject, for_operator=True))


def _message(request: QuoteRequest, language: str, address: str, subject: str, *, for_operator=False):
    operator = operator_branding()
    with translation.override(language):
        context = {
            "request": {name: unlinked(getattr(request, name)) for name in TYPED},
            "reference": request.reference,
            "pickup": timezone.localtime(request.pickup_at),
            "passengers": request.passengers,
            "luggage": request.luggage,
            "vehicle": vehicle_name(request.vehicle_class) if request.vehicle_class else "",
            "email": request.email,
            "operator": operator,
            "for_operator": for_operator,
            "admin_url": settings.PUBLIC_BASE_URL
            + reverse("admin:quote_requests_quoterequest_change", args=[request.pk]),
            "site_url": f"{settings.PUBLIC_BASE_URL}/{language}/",
            "legal_links": legal.links(language),
        }
        text = render_to_string("emails/quote_request_received.txt", context)
    message = EmailMultiAlternatives(one_line(subject), text, from_email=sender(), to=[address])
    # the traveller answers the operator; the operator answers the traveller (addresses with a line break,
    # stored before the forms refused them, cannot be a header: left out)
    reply_to = request.email if for_operator else operator.email
    if reply_to and not re.search(CONTROL_CHARACTERS, reply_to):
        message.reply_to = [reply_to]
    return message


def send_offer(request_id: int) -> None:
    """The offer, in the traveller's language: the trip, the lines and total, the validity and the link that
    books and pays it."""
    request = QuoteRequest.objects.filter(pk=request_id).first()
    if request is None:  # erased before its mail went
        return
    language = "de" if request.locale == "de" else "en"
    offer = request.offer
    if offer is None:  # withdrawn meanwhile
        return
    quote = offer.quote
    operator = operator_branding()
    with translation.override(language):
        context = {
            "request": {name: unlinked(getattr(request, name)) for name in TYPED},
            "reference": request.reference,
            "pickup": timezone.localtime(request.pickup_at),
            "vehicle": vehicle_name(offer.vehicle_class),
            "lines": [{"label": unlinked(line.label), "amount": money(line.amount)} for line in quote.lines],
            "total": money(quote.price),
            "vat_note": str(_("includes {rate} % VAT: {vat} (net {net})")).format(
                rate=number(quote.vat_rate * 100), vat=money(quote.vat), net=money(quote.net)
            ),
            "valid_until": offer.valid_until,
            "offer_url": offer.url,
            "operator": operator,
            "site_url": f"{settings.PUBLIC_BASE_URL}/{language}/",
            "legal_links": legal.links(language),
        }
        text = render_to_string("emails/quote_offer.txt", context)
    subject = OFFER_SUBJECTS[language].format(reference=request.reference)
    message = EmailMultiAlternatives(one_line(subject), text, from_email=sender(), to=[request.email])
    if operator.email and not re.search(CONTROL_CHARACTERS, operator.email):
        message.reply_to = [operator.email]
    deliver(message)
