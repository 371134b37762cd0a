"""E-mails about bookings, to the customer in their language (with a copy to the operator where it
helps dispatch): the confirmation when a booking is paid (once per booking), the cancellation with what
was kept and given back, the chauffeur once assigned; the driver's job (and its withdrawal); and an alert
when money news cannot be settled by the service itself."""

import logging
from dataclasses import dataclass
from email.utils import formataddr

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation

from booking import links, presentation, selectors
from booking.models import Booking, BookingStatus, RefundStatus
from company import legal
from company.services import operator_branding
from pricing.money import CURRENCY, from_cents

logger = logging.getLogger(__name__)

OPERATOR = "operator"  # the audience of the operator's copy (English, with the contact details)


@dataclass(frozen=True)
class Mail:
    subjects: dict[str, str]  # by audience: "en", "de", OPERATOR; `{reference}` is filled in
    template: str  # emails/<name>: .txt always, .html when `html`
    html: bool = False
    operator_copy: bool = True


# The confirmation's subject says what the booking is when it leaves: paid, or already confirmed by staff.
PAYMENT_RECEIVED = Mail(
    {
        "en": "Payment received for your booking {reference}",
        "de": "Zahlung für Ihre Buchung {reference} erhalten",
        OPERATOR: "Paid booking {reference}",
    },
    "emails/booking_confirmation",
    html=True,
)
CONFIRMED = Mail(
    {
        "en": "Your booking {reference} is confirmed",
        "de": "Ihre Buchung {reference} ist bestätigt",
        OPERATOR: "Paid booking {reference}",
    },
    "emails/booking_confirmation",
    html=True,
)
CANCELLATION = Mail(
    {
        "en": "Your chauffeur booking {reference} is cancelled",
        "de": "Ihre Chauffeur-Buchung {reference} ist storniert",
        OPERATOR: "Cancelled booking {reference}",
    },
    "emails/booking_cancelled",
)


CHAUFFEUR_ASSIGNED = Mail(
    {
        "en": "Your chauffeur for booking {reference}",
        "de": "Ihr Chauffeur für die Buchung {reference}",
    },
    "emails/chauffeur_assigned",
    operator_copy=False,
)
CHANGED = Mail(
    {
        "en": "Your chauffeur booking {reference} was changed",
        "de": "Ihre Chauffeur-Buchung {reference} wurde geändert",
        OPERATOR: "Changed booking {reference}",
    },
    "emails/booking_changed",
)
PAYMENT_LINK = Mail(
    {
        "en": "Payment for your chauffeur booking {reference}",
        "de": "Zahlung für Ihre Chauffeur-Buchung {reference}",
    },
    "emails/payment_link",
    operator_copy=False,
)
DRIVER_JOB = Mail(
    {"en": "Job {reference}", "de": "Fahrt {reference}"}, "emails/driver_job", operator_copy=False
)
DRIVER_JOB_OFF = Mail(
    {"en": "Job {reference} is off", "de": "Fahrt {reference} entfällt"},
    "emails/driver_job_off",
    operator_copy=False,
)


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
    confirmed = booking.status in (BookingStatus.CONFIRMED, BookingStatus.COMPLETED)
    delivered = send(CONFIRMED if confirmed else PAYMENT_RECEIVED, booking)
    if not delivered:
        Booking.objects.filter(pk=booking.pk).update(confirmation_sent_at=None)
    return delivered


def send_cancellation(booking_id: int) -> None:
    booking = Booking.objects.select_related("driver").get(pk=booking_id)
    send(CANCELLATION, booking)
    if booking.driver is not None:
        to_driver(DRIVER_JOB_OFF, booking, booking.driver)


def send_assignment(booking_id: int, replaced=None) -> None:
    """The driver's job, the customer's chauffeur, and the job's withdrawal for a driver replaced."""
    booking = Booking.objects.select_related("driver", "vehicle__vehicle_class").get(pk=booking_id)
    to_driver(DRIVER_JOB, booking, booking.driver)
    send(CHAUFFEUR_ASSIGNED, booking)
    if replaced is not None:
        to_driver(DRIVER_JOB_OFF, booking, replaced)


def send_change(booking_id: int) -> None:
    """The changed ride to the customer, and to its driver as an updated job."""
    booking = Booking.objects.select_related("driver", "vehicle").get(pk=booking_id)
    send(CHANGED, booking)
    if booking.driver is not None:
        to_driver(DRIVER_JOB, booking, booking.driver)


def send_payment_link(booking_id: int, url: str, amount) -> bool:
    """A payment page for the customer: a phone booking's price, or a difference after a change."""
    return send(PAYMENT_LINK, Booking.objects.get(pk=booking_id), payment_url=url, amount=amount)


def to_driver(mail: Mail, booking: Booking, driver) -> bool:
    """A driver's mail, in German when German is the first language they speak, else in English."""
    if not driver.email:
        return False
    locale = "de" if driver.language_codes[:1] == ["de"] else "en"
    return _deliver(compose(mail, booking, driver.email, locale, driver=driver))


def send(mail: Mail, booking: Booking, **extra) -> bool:
    """The customer's mail (if they gave an address) and the operator's copy (if one is configured).
    Whether the customer's went out; a failed copy is logged, not retried."""
    delivered = True
    if booking.email:
        delivered = _deliver(compose(mail, booking, booking.email, customer_locale(booking), **extra))
    if settings.OPERATOR_EMAIL and mail.operator_copy:
        _deliver(compose(mail, booking, settings.OPERATOR_EMAIL, OPERATOR, **extra))
    return delivered


def customer_locale(booking: Booking) -> str:
    return "de" if booking.locale == "de" else "en"


def compose(mail: Mail, booking: Booking, address: str, audience: str, **extra) -> EmailMultiAlternatives:
    """One mail, in the operator's name and colours; replies go to the operator's own address."""
    locale = "de" if audience == "de" else "en"
    operator = operator_branding()
    with translation.override(locale):
        context = {
            "booking": booking,
            "locale": locale,
            "operator": operator,
            "for_operator": audience == OPERATOR,
            "confirmed": booking.status in (BookingStatus.CONFIRMED, BookingStatus.COMPLETED),
            "pickup": booking.pickup_at and timezone.localtime(booking.pickup_at),
            "vehicle": presentation.vehicle_name(booking.vehicle_class),
            "lines": presentation.price_lines(booking),
            "vat_note": presentation.vat_note(booking),
            "logo_url": f"{settings.PUBLIC_BASE_URL}{operator.logo_path}" if operator.logo_path else "",
            "site_url": f"{settings.PUBLIC_BASE_URL}/{locale}/",
            "manage_url": links.manage_url(booking.reference),
            "legal_links": legal.links(locale),  # imprint, terms, privacy: the footer of every mail
            "minutes": round(booking.duration_s / 60) if booking.duration_s else "-",
            "fee": from_cents(booking.cancellation_fee_cents or 0),
            "refund": from_cents(
                selectors.refunds_total(booking, [RefundStatus.PENDING, RefundStatus.SUCCEEDED])
            ),
            **extra,
        }
        text = render_to_string(f"{mail.template}.txt", context)
        html = render_to_string(f"{mail.template}.html", context) if mail.html else None
    message = EmailMultiAlternatives(
        mail.subjects[audience].format(reference=booking.reference),
        text,
        from_email=_sender(),
        to=[address],
        reply_to=[operator.email] if operator.email else None,
    )
    if html is not None:
        message.attach_alternative(html, "text/html")
    return message


def alert_operator(booking_id: int, reason: str, *, topic: str = "Payment") -> None:
    """Money news the service cannot settle by itself (a payment it cannot apply, a refund that failed):
    the operator decides with the provider."""
    booking = Booking.objects.get(pk=booking_id)
    if settings.OPERATOR_EMAIL:
        send_mail(
            f"{topic} to check for {booking.get_status_display()} booking {booking.reference}",
            f"{topic} news for booking {booking.reference} ({booking.get_status_display()}, price "
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


def _sender() -> str:
    """The operator's name with the service's sending address (DEFAULT_FROM_EMAIL)."""
    return formataddr((operator_branding().name, settings.DEFAULT_FROM_EMAIL))
