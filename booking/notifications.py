"""E-mails about bookings: the confirmation when a booking is paid (to the customer in their language, a
copy with contact details to the operator), once per booking; and an alert when money arrives for a booking
that can no longer be paid."""

import logging
from email.utils import formataddr

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from booking import presentation, selectors
from booking.models import Booking, BookingStatus
from company.services import operator_branding
from pricing.money import CURRENCY, from_cents

logger = logging.getLogger(__name__)

AUDIENCES = ("de", "en", "operator")  # a customer in their language, or the operator (in English)


def send_confirmation(booking_id: int) -> bool:
    """Send the confirmation unless it went out already. The booking is claimed in a short transaction and
    the mail is sent outside it (no row lock held during SMTP); if the customer's mail fails, the claim is
    released so `manage.py send_confirmations` can try again."""
    with transaction.atomic():
        booking = selectors.locked_booking(booking_id)
        if booking.confirmation_sent_at is not None:
            return False
        booking.confirmation_sent_at = timezone.now()
        booking.save(update_fields=["confirmation_sent_at"])
    delivered = True
    if booking.email:
        delivered = _deliver(
            _message(booking, booking.email, booking.locale if booking.locale in AUDIENCES else "en")
        )
    if settings.OPERATOR_EMAIL:
        _deliver(
            _message(booking, settings.OPERATOR_EMAIL, "operator")
        )  # a failed copy is logged, not retried
    if not delivered:
        Booking.objects.filter(pk=booking.pk).update(confirmation_sent_at=None)
    return delivered


def alert_operator(booking_id: int, reason: str) -> None:
    """A payment arrived for a booking that it cannot settle: the operator decides with the provider."""
    booking = Booking.objects.get(pk=booking_id)
    if settings.OPERATOR_EMAIL:
        send_mail(
            f"Payment to check for {booking.get_status_display()} booking {booking.reference}",
            f"A payment arrived for booking {booking.reference} ({booking.get_status_display()}, price "
            f"{CURRENCY} {from_cents(booking.amount_cents)}): {reason}.\n"
            f"Payment intent: {booking.payment_intent_id or '-'}; "
            f"customer: {booking.name} <{booking.email}>.",
            _sender(),
            [settings.OPERATOR_EMAIL],
            fail_silently=True,
        )


def _deliver(message: EmailMultiAlternatives) -> bool:
    try:
        message.send()
    except Exception:  # SMTP, DNS, TLS … each backend raises its own; none may undo a payment
        logger.exception("Could not send %r to %s", message.subject, message.to)
        return False
    return True


def _message(booking: Booking, address: str, audience: str) -> EmailMultiAlternatives:
    locale = "de" if audience == "de" else "en"
    operator = operator_branding()
    with translation.override(locale):
        context = {
            "booking": booking,
            "operator": operator,
            "for_operator": audience == "operator",
            "confirmed": booking.status in (BookingStatus.CONFIRMED, BookingStatus.COMPLETED),
            "vehicle": presentation.vehicle_name(booking.vehicle_class),
            "lines": presentation.price_lines(booking),
            "vat_note": presentation.vat_note(booking),
            "logo_url": f"{settings.PUBLIC_BASE_URL}{operator.logo_path}" if operator.logo_path else "",
            "site_url": f"{settings.PUBLIC_BASE_URL}/{locale}/",
        }
        subject = _subject(booking, audience)
        text = render_to_string("emails/booking_confirmation.txt", context)
        html = render_to_string("emails/booking_confirmation.html", context)
    message = EmailMultiAlternatives(
        subject,
        text,
        from_email=_sender(),
        to=[address],
        reply_to=[operator.email] if operator.email else None,
    )
    message.attach_alternative(html, "text/html")
    return message


def _subject(booking: Booking, audience: str) -> str:
    """What the booking is when the mail leaves: paid (money in), or already confirmed by staff."""
    if audience == "operator":
        return f"Paid booking {booking.reference}"
    if booking.status in (BookingStatus.CONFIRMED, BookingStatus.COMPLETED):
        return _("Your booking {reference} is confirmed").format(reference=booking.reference)
    return _("Payment received for your booking {reference}").format(reference=booking.reference)


def _sender() -> str:
    """The operator's name with the service's sending address (DEFAULT_FROM_EMAIL)."""
    return formataddr((operator_branding().name, settings.DEFAULT_FROM_EMAIL))
