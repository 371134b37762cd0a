"""The confirmation e-mail sent when a booking is paid: to the customer in their language, a copy to the
operator; once per booking, whatever reaches us twice."""

import logging

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation

from booking.models import Booking

logger = logging.getLogger(__name__)

SUBJECTS = {
    "en": "Your chauffeur booking {reference} is confirmed",
    "de": "Ihre Chauffeur-Buchung {reference} ist bestätigt",
}


def send_confirmation(booking_id: int) -> None:
    with transaction.atomic():
        booking = Booking.objects.select_for_update().get(pk=booking_id)
        if booking.confirmation_sent_at is not None:
            return
        recipients = [(booking.email, booking.locale)] if booking.email else []
        if settings.OPERATOR_EMAIL:
            recipients.append((settings.OPERATOR_EMAIL, "en"))
        for address, locale in recipients:
            _message(booking, address, locale).send()
        booking.confirmation_sent_at = timezone.now()
        booking.save(update_fields=["confirmation_sent_at"])
    logger.info("Confirmation of %s sent to %d recipient(s)", booking.reference, len(recipients))


def _message(booking: Booking, address: str, locale: str) -> EmailMultiAlternatives:
    locale = locale if locale in SUBJECTS else "en"
    with translation.override(locale):
        context = {
            "booking": booking,
            "locale": locale,
            "pickup": booking.pickup_at and timezone.localtime(booking.pickup_at),
        }
        text = render_to_string("emails/booking_confirmation.txt", context)
        html = render_to_string("emails/booking_confirmation.html", context)
    message = EmailMultiAlternatives(SUBJECTS[locale].format(reference=booking.reference), text, to=[address])
    message.attach_alternative(html, "text/html")
    return message
