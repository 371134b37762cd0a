"""E-mails about bookings, to the customer in their language (with a copy to the operator where it
helps dispatch): the confirmation when a booking is paid (once per booking), the cancellation with what
was kept and given back, the chauffeur once assigned; the driver's job (and its withdrawal); and an alert
when money news cannot be settled by the service itself."""

import logging
import re
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from email.utils import formataddr

from django.conf import settings
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from booking import calendar, links, presentation, selectors, trips
from booking.models import Booking, BookingStatus, PaymentMethod, state_in_english
from booking.money_shown import money_shown
from fleet.models import Driver
from jobqueue import delivery
from operator_profile import legal
from operator_profile.models import CONTROL_CHARACTERS
from operator_profile.services import operator_branding
from pricing.money import CURRENCY, from_cents

logger = logging.getLogger(__name__)

# How long a sender's claim on a confirmation holds: longer than any SMTP timeout, so only a dead
# sender's claim lapses.
CONFIRMATION_CLAIM = timedelta(minutes=10)
OPERATOR = "operator"  # the audience of the operator's copy (English, with the contact details)


@dataclass(frozen=True)
class Mail:
    subjects: dict[str, str]  # by audience: "en", "de", OPERATOR; `{reference}` is filled in
    template: str  # emails/<name>: .txt always, .html when `html`
    html: bool = False
    operator_copy: bool = True
    calendar: bool = False  # the traveller's copy carries the ride's .ics (booking/calendar.py)
    invoice: bool = False  # the traveller's copy carries the booking's invoice (PDF), once it has one
    credit_notes: bool = False  # the traveller's copy carries the credit notes of the cancellation's refund


# The confirmation's subject says what the booking is when it leaves: paid, or already confirmed by staff.
PAYMENT_RECEIVED = Mail(
    {
        "en": "Payment received for your booking {reference}",
        "de": "Zahlung für Ihre Buchung {reference} erhalten",
        OPERATOR: "Paid booking {reference}",
    },
    "emails/booking_confirmation",
    html=True,
    calendar=True,
    invoice=True,
)
CONFIRMED = Mail(
    {
        "en": "Your booking {reference} is confirmed",
        "de": "Ihre Buchung {reference} ist bestätigt",
        OPERATOR: "Paid booking {reference}",
    },
    "emails/booking_confirmation",
    html=True,
    calendar=True,
    invoice=True,
)
BOOKED_ON_ACCOUNT = Mail(
    {
        "en": "Your booking {reference} on your company's account",
        "de": "Ihre Buchung {reference} auf Firmenrechnung",
        OPERATOR: "Booking on account {reference}",
    },
    "emails/booking_confirmation",
    html=True,
    calendar=True,
)
ACCOUNT_LINK = Mail(
    {
        "en": "Confirm your booking {reference} on your company's account",
        "de": "Bestätigen Sie Ihre Buchung {reference} auf Firmenrechnung",
    },
    "emails/account_link",
    operator_copy=False,
)
CANCELLATION = Mail(
    {
        "en": "Your chauffeur booking {reference} is cancelled",
        "de": "Ihre Chauffeur-Buchung {reference} ist storniert",
        OPERATOR: "Cancelled booking {reference}",
    },
    "emails/booking_cancelled",
    credit_notes=True,
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
AFTER_RIDE = Mail(
    {
        "en": "After your ride {reference}",
        "de": "Nach Ihrer Fahrt {reference}",
        OPERATOR: "Billed after the ride {reference}",
    },
    "emails/after_ride",
)
CHARGE_WITHDRAWN = Mail(
    {
        "en": "Correction for your ride {reference}",
        "de": "Korrektur zu Ihrer Fahrt {reference}",
        OPERATOR: "Charge after the ride withdrawn {reference}",
    },
    "emails/charge_withdrawn",
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
    """Send the confirmation unless it went out already. The booking is claimed in a short transaction
    (a lease, so two senders never both send) and the mail is sent outside it (no row lock held during
    SMTP); it is marked sent only once delivered. A sender that dies leaves a lapsing claim, and
    `manage.py send_confirmations` sends it then."""
    now = timezone.now()
    with transaction.atomic():
        booking = selectors.locked_booking(booking_id)
        claimed = booking.confirmation_claimed_at
        if booking.confirmation_sent_at is not None or (claimed and claimed > now - CONFIRMATION_CLAIM):
            return False
        booking.confirmation_claimed_at = now
        booking.save(update_fields=["confirmation_claimed_at"])
    delivered = send(confirmation_mail(booking), booking)
    Booking.objects.filter(pk=booking.pk).update(
        confirmation_sent_at=timezone.now() if delivered else None, confirmation_claimed_at=None
    )
    return delivered


def confirmation_mail(booking: Booking) -> Mail:
    """Confirmed by staff, booked on account (nothing paid yet), or paid."""
    if booking.status in (BookingStatus.CONFIRMED, BookingStatus.COMPLETED):
        return CONFIRMED
    return BOOKED_ON_ACCOUNT if booking.payment_method == PaymentMethod.ACCOUNT else PAYMENT_RECEIVED


def deliver_confirmation(booking_id: int) -> None:
    """The confirmation as the queue's job (booking/tasks.py): no claim, as the queue runs one attempt at a
    time; a failed mail raises, so the job is tried again, and what went out is not sent twice."""
    booking = Booking.objects.get(pk=booking_id)
    if booking.confirmation_sent_at is not None:
        return
    claimed = booking.confirmation_claimed_at
    if claimed and claimed > timezone.now() - CONFIRMATION_CLAIM:
        # `send_confirmations`, run by hand, is sending it now: the retry finds it sent
        raise ConfirmationBeingSent(f"the confirmation of {booking.reference} is being sent elsewhere")
    send(confirmation_mail(booking), booking)
    Booking.objects.filter(pk=booking.pk).update(
        confirmation_sent_at=timezone.now(), confirmation_claimed_at=None
    )


class ConfirmationBeingSent(Exception):
    pass


def send_cancellation(booking_id: int) -> None:
    """The cancellation, for a booking that was paid. One never paid was made with an address nobody
    proved (anyone may book in anyone's name and cancel with that address): mailing it would make us a
    relay of text strangers wrote, so it is cancelled without a word to anyone."""
    booking = Booking.objects.select_related("driver").get(pk=booking_id)
    if not booking.money_received:
        return
    send(CANCELLATION, booking)
    if booking.driver is not None:
        to_driver(DRIVER_JOB_OFF, booking, booking.driver)


def send_assignment_mails(booking_id: int, replaced_driver_id: int | None = None, job_url: str = "") -> None:
    """The driver's job (with `job_url`, the link to their job page, which dispatch issued), the customer's
    chauffeur, and the job's withdrawal for a driver replaced."""
    booking = Booking.objects.select_related("driver", "vehicle__vehicle_class").get(pk=booking_id)
    to_driver(DRIVER_JOB, booking, booking.driver, job_url=job_url)
    send(CHAUFFEUR_ASSIGNED, booking)
    if replaced_driver_id is not None:
        to_driver(DRIVER_JOB_OFF, booking, Driver.objects.get(pk=replaced_driver_id))


def send_change(booking_id: int) -> None:
    """The changed ride to the customer, and to its driver as an updated job."""
    booking = Booking.objects.select_related("driver", "vehicle").get(pk=booking_id)
    send(CHANGED, booking)
    if booking.driver is not None:
        to_driver(DRIVER_JOB, booking, booking.driver)


def send_account_link(booking_id: int) -> bool:
    """The one-time link that confirms a booking on a company's account: opening it proves the address."""
    booking = Booking.objects.get(pk=booking_id)
    return send(ACCOUNT_LINK, booking, account_url=links.account_link_url(booking))


def send_payment_link(booking_id: int, url: str, amount, surcharge_id: int | None = None) -> bool:
    """A payment page for the customer: a phone booking's price, or a difference after a change, saying
    why (what changed: the price before and after, what was paid)."""
    booking = Booking.objects.get(pk=booking_id)
    with translation.override(customer_locale(booking)):
        because = money_shown().owed_because(booking, surcharge_id) if surcharge_id else ""
    return send(PAYMENT_LINK, booking, payment_url=url, amount=amount, because=because)


# The amounts of an after-ride statement (dispatch/ride_billing.py), sent as exact text.
STATEMENT_MONEY = ("rate", "amount", "vat", "price", "fee", "paid", "back", "owed", "due", "paid_before")


def send_after_ride(booking_id: int, statement: dict) -> bool:
    """What the ride cost beyond its price, and why: waiting beyond what was included, or the no-show fee
    with the policy; how it is paid (the payment link, the invoice, in cash) or what goes back."""
    shown = {key: Decimal(value) if key in STATEMENT_MONEY else value for key, value in statement.items()}
    return send(AFTER_RIDE, Booking.objects.get(pk=booking_id), statement=shown)


# The amounts of the correction when staff undo the end of a ride (dispatch/ride_billing.py `void`).
CORRECTION_MONEY = ("withdrawn", "back", "back_by_staff")


def send_charge_withdrawn(booking_id: int, correction: dict) -> bool:
    """Staff undid the end of the ride that charged the traveller: the waiting time or no-show fee no longer
    applies; a payment link for it is void, and what was paid for it goes back."""
    shown = {key: Decimal(value) if key in CORRECTION_MONEY else value for key, value in correction.items()}
    return send(CHARGE_WITHDRAWN, Booking.objects.get(pk=booking_id), correction=shown)


def to_driver(mail: Mail, booking: Booking, driver, job_url: str = "") -> bool:
    """A driver's mail, in German when German is the first language they speak, else in English. The job
    carries its calendar entry, and the link to the job page when one is given."""
    if not driver.email:
        return False
    locale = driver.locale
    with translation.override(locale):  # what to bring, in the chauffeur's words
        extras = presentation.to_bring(booking)
    message = compose(mail, booking, driver.email, locale, driver=driver, job_url=job_url, extras=extras)
    if mail is DRIVER_JOB:
        entry = calendar.ride_event(booking, locale=locale, for_chauffeur=True, link=job_url)
        if entry is not None:
            message.attach(calendar.file_name(booking), entry, calendar.MEDIA_TYPE)
    return deliver(message)


def send(mail: Mail, booking: Booking, **extra) -> bool:
    """The customer's mail (if they gave an address) and the operator's copy (if one is configured).
    Whether the customer's went out; a failed copy is logged, not retried."""
    delivered = True
    if booking.email:
        message = compose(mail, booking, booking.email, customer_locale(booking), **extra)
        if mail.calendar:
            attach_calendar(message, booking, customer_locale(booking))
        if mail.invoice:
            attach_invoice(message, booking)
        if mail.credit_notes:
            attach_cancellation_credit_notes(message, booking)
        delivered = deliver(message)
    if settings.OPERATOR_EMAIL and mail.operator_copy:
        deliver(compose(mail, booking, settings.OPERATOR_EMAIL, OPERATOR, **extra))
    return delivered


def attach_calendar(message: EmailMultiAlternatives, booking: Booking, locale: str) -> None:
    """The ride as a calendar entry in the traveller's language, pointing to their manage page; a ride
    without a pickup time has none."""
    entry = calendar.ride_event(booking, locale=locale, link=links.manage_url(booking.reference))
    if entry is not None:
        message.attach(calendar.file_name(booking), entry, calendar.MEDIA_TYPE)


def attach_invoice(message: EmailMultiAlternatives, booking: Booking) -> None:
    """The booking's invoice (issued with its payment, so it exists when the confirmation goes out)."""
    invoice = money_shown().invoice(booking)
    if invoice is not None:
        for file in invoice.files():
            message.attach(*file)


def attach_cancellation_credit_notes(message: EmailMultiAlternatives, booking: Booking) -> None:
    """The credit notes of the cancellation's refund done at once (invoicing/credit_notes.py mails those of
    a refund done later on their own)."""
    for note in money_shown().cancellation_credit_notes(booking):
        for file in note.files():
            message.attach(*file)


def customer_locale(booking: Booking) -> str:
    return "de" if booking.locale == "de" else "en"


def compose(mail: Mail, booking: Booking, address: str, audience: str, **extra) -> EmailMultiAlternatives:
    """One mail, in the operator's name and colours; replies go to the operator's own address."""
    locale = "de" if audience == "de" else "en"
    operator = operator_branding()
    with translation.override(locale):
        context = {
            "booking": AsMailed(booking),
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
            "other_ride": trips.other_leg(booking),  # a return trip's: each ride has its own mails
            # a ride on account: the company whose monthly collective invoice lists it
            "on_account": booking.company_account.name
            if booking.payment_method == PaymentMethod.ACCOUNT and booking.company_account is not None
            else "",
            # the customer's copy says it carries the invoice (send() attaches it)
            "invoice": money_shown().invoice(booking) if mail.invoice and audience != OPERATOR else None,
            "legal_links": legal.links(locale),  # imprint, terms, privacy: the footer of every mail
            "minutes": round(booking.duration_s / 60) if booking.duration_s else "-",
            "fee": from_cents(booking.cancellation_fee_cents or 0),
            "refund": from_cents(money_shown().given_back_cents(booking)),
            **extra,
        }
        text = render_to_string(f"{mail.template}.txt", context)
        html = render_to_string(f"{mail.template}.html", context) if mail.html else None
    # An address with a line break (stored before the admin refused it) cannot be repaired: left out.
    reply_to = "" if re.search(CONTROL_CHARACTERS, operator.email) else operator.email
    message = EmailMultiAlternatives(
        one_line(mail.subjects[audience].format(reference=booking.reference)),
        text,
        from_email=sender(),
        to=[address],
        reply_to=[reply_to] if reply_to else None,
    )
    if html is not None:
        message.attach_alternative(html, "text/html")
    return message


def alert_operator(booking_id: int, reason: str, *, topic: str = "Payment") -> None:
    """Money news the service cannot settle by itself (a payment it cannot apply, a refund that failed):
    the operator decides with the provider."""
    booking = Booking.objects.get(pk=booking_id)
    if settings.OPERATOR_EMAIL:
        deliver(
            EmailMultiAlternatives(
                one_line(
                    f"{topic} to check for {state_in_english(booking.status)} booking {booking.reference}"
                ),
                f"{topic} news for booking {booking.reference} ({state_in_english(booking.status)}, price "
                f"{CURRENCY} {from_cents(booking.amount_cents)}): {reason}.\n"
                f"Payment intent: {_payment_intent(booking) or '-'}; "
                f"customer: {unlinked(booking.name)} <{booking.email}>.\n"
                f"The booking's page (its refunds, open amounts and history): {admin_page(booking)}",
                sender(),
                [settings.OPERATOR_EMAIL],
            )
        )


def _payment_intent(booking: Booking) -> str | None:
    """The provider payment of the booking's own price, read through the ledger's relation to it."""
    own = booking.payment_shares.filter(payment__state="received", payment__surcharge__isnull=True)
    return own.order_by("-payment__received_at").values_list("payment__payment_intent_id", flat=True).first()


def admin_page(booking: Booking) -> str:
    """The booking's page in the admin, where staff act on an alert (a refund is one click there)."""
    return f"{settings.PUBLIC_BASE_URL}{reverse('admin:booking_booking_change', args=[booking.pk])}"


# What a customer typed, shown in mails. Their own e-mail address stays as it is: validated, and the
# operator replies to it.
CUSTOMER_TEXT = frozenset(
    {
        "name",
        "origin",
        "destination",
        "destination_shown",
        "phone",
        "notes",
        "flight_number",
        "water_choice",
        "tour_name",
    }
)
_SCHEME = re.compile(r"\b([a-z][a-z0-9+.-]*:)(?=\S)", re.IGNORECASE)  # https://, mailto:, javascript:
# A dot before a letter joins a domain name (evil.example, www.x: top-level domains are letters), while
# "10.5 kg" and "2.30 pm" stay as typed; the ideographic and full-width dots count too, as IDNA reads
# them as dots.
_DOMAIN_DOT = re.compile(r"(?<=\w)([.\u3002\uff0e\uff61])(?=[^\W\d_])")


def unlinked(text: str) -> str:
    """Customer text that no mail client turns into a link: a space after a scheme's colon and after a
    dot inside a word (`https: //evil. example`, `www. evil. example`). Still readable; nothing dropped."""
    return _DOMAIN_DOT.sub(r"\1 ", _SCHEME.sub(r"\1 ", text))


class AsMailed:
    """A booking as mail templates see it: the text its customer typed comes `unlinked`; the rest is the
    booking's own. Mails carry only links we wrote (the manage page, the site, payment pages)."""

    def __init__(self, booking: Booking):
        self._booking = booking

    def __getattr__(self, name: str):
        value = getattr(self._booking, name)
        return unlinked(value) if name in CUSTOMER_TEXT and isinstance(value, str) else value

    @property
    def stops_shown(self) -> list[str]:
        """The stops on the way, in order, worded in the mail's language."""
        return [unlinked(stop) for stop in presentation.stops_shown(self._booking)]

    def __str__(self) -> str:
        return str(self._booking)


def deliver(message: EmailMessage) -> bool:
    if delivery.current_scope() is not None:  # in a job: once per job, and a failure retries the job
        delivery.send_once(message)
        return True
    try:
        message.send()
    except Exception:  # SMTP, DNS, TLS … each backend raises its own; none may undo a payment
        logger.exception("Could not send %r to %s", message.subject, message.to)
        return False
    return True


def sender() -> str:
    """The operator's name with the service's sending address (DEFAULT_FROM_EMAIL)."""
    return formataddr((one_line(operator_branding().name), settings.DEFAULT_FROM_EMAIL))


_BREAKS = re.compile(CONTROL_CHARACTERS + "+")


def one_line(text: str) -> str:
    """Header text on one line. The admin refuses line breaks in the operator's name and address, but one
    stored before that must not stop every mail (Django raises BadHeaderError): each run becomes a space."""
    return " ".join(_BREAKS.sub(" ", text).split())


def mail_to(template: str, subject: str, address: str, locale: str, **context) -> bool:
    """A mail about more than one booking (a chauffeur's rides of tomorrow): emails/<template>.txt in
    `locale`, in the operator's name, with the legal footer. Sent once per job, like every mail here."""
    operator = operator_branding()
    with translation.override(locale):
        text = render_to_string(
            f"{template}.txt",
            {"locale": locale, "operator": operator, "legal_links": legal.links(locale), **context},
        )
    reply_to = "" if re.search(CONTROL_CHARACTERS, operator.email) else operator.email
    return deliver(
        EmailMultiAlternatives(
            one_line(subject), text, sender(), [address], reply_to=[reply_to] if reply_to else None
        )
    )
