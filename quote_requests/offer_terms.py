"""What an offer says and allows: its price (the lines staff wrote, at the class's VAT rate), its link, and
whether staff may send it or the traveller accept it."""

from dataclasses import dataclass
from decimal import Decimal

from django.core import signing
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from booking.models import Booking, BookingStatus
from pricing import quote as pricing_quote
from pricing import services as pricing
from quote_requests.models import OFFER_SALT, QuoteRequest, QuoteRequestStatus

# A booking made from the offer that was never paid (the payment page left or expired, the payment failed):
# booking the offer again books anew. A cancelled one stays the offer's: staff send it again for a new one.
UNPAID = (BookingStatus.EXPIRED, BookingStatus.PAYMENT_FAILED)


def lines_of(request: QuoteRequest) -> list[tuple[str, Decimal]]:
    return [(line.label, line.amount) for line in request.offer_lines.all()]


def drafted(request: QuoteRequest) -> pricing_quote.Quote:
    """The offer as staff have written it so far: its lines at the VAT rate of the class's tariff (which
    why_not_sendable makes sure of)."""
    rates = pricing.current_snapshot().tariffs[request.offer_vehicle_class]
    return pricing_quote.offered(request.offer_vehicle_class, lines_of(request), rates.vat_rate)


def booked_from(request: QuoteRequest) -> Booking | None:
    """The booking made from the offer, unless it was never paid."""
    booking = request.booking
    return booking if booking is not None and booking.status not in UNPAID else None


def why_not_sendable(request: QuoteRequest) -> str | None:
    """What stops staff from sending the offer, in their words; None: it can go."""
    tariffs = pricing.current_snapshot().tariffs
    offered = {offer.code: offer for offer in pricing.offered_vehicle_classes() if offer.code in tariffs}
    today = timezone.localdate()
    if request.status == QuoteRequestStatus.CLOSED:
        return str(_("The request is closed."))
    booked = booked_from(request)
    if booked is not None and booked.status != BookingStatus.CANCELLED:
        return str(_("The traveller has accepted the offer already: change the booking instead."))
    if request.offer_vehicle_class not in offered:
        return str(_("Choose a class that is offered for the offer."))
    car = offered[request.offer_vehicle_class]
    if (request.passengers or 0) > car.passengers or (request.luggage or 0) > car.luggage:
        return str(
            format_lazy(
                _(
                    "An offer is for one car, and this class takes {seats} passengers and {bags} pieces of "
                    "luggage: answer a larger group by e-mail and mark the request answered."
                ),
                seats=car.passengers,
                bags=car.luggage,
            )
        )
    lines = lines_of(request)
    if not lines or sum((amount for _label, amount in lines), Decimal(0)) <= 0:
        return str(_("Give the offer its lines, together more than 0 €."))
    pickup_day = timezone.localdate(request.pickup_at)
    if request.offer_valid_until is None or not today <= request.offer_valid_until <= pickup_day:
        return str(_("Give a validity from today until the day of the pickup at the latest."))
    if request.pickup_at <= timezone.now():
        return str(_("The pickup has passed."))
    return None


def request_of(token: str) -> QuoteRequest | None:
    """The request an offer link names; None for a forged or mangled link."""
    try:
        reference = signing.Signer(salt=OFFER_SALT).unsign(token)
    except signing.BadSignature:
        return None
    return QuoteRequest.objects.filter(reference=reference, sent_offer__isnull=False).first()


@dataclass(frozen=True)
class Standing:
    """Where an offer stands for the traveller who opens its link."""

    acceptable: bool
    booking: Booking | None  # made when they accepted: paid, awaiting payment, or cancelled since
    reason: str = ""  # why it cannot be accepted, in their words


def standing(request: QuoteRequest) -> Standing:
    """From the offer as sent: staff's edits since count once they send it again."""
    booking, sent = booked_from(request), request.offer
    if booking is not None and booking.status == BookingStatus.CANCELLED:
        cancelled = _("Your booking of this offer was cancelled. Please contact us.")
        return Standing(False, booking, str(cancelled))
    if booking is not None and booking.status != BookingStatus.PENDING_PAYMENT:
        return Standing(False, booking, str(_("You have booked this offer.")))
    if request.status == QuoteRequestStatus.CLOSED or sent is None:
        return Standing(False, None, str(_("This offer has been withdrawn. Please contact us.")))
    if timezone.localdate() > sent.valid_until:
        return Standing(False, None, str(_("This offer has expired. Please ask us for a new one.")))
    return Standing(True, booking)
