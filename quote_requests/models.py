"""A request for a quote: a trip the tariff cannot price (more passengers than the largest class seats,
several cars or days, outside the tariff's area), asked for by a traveller on the booking page or by a
program or an agent, for staff to answer."""

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.conf import settings
from django.core import signing
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from booking.models import BookingChannel
from pricing.models import VehicleClass
from pricing.quote import PriceLine, Quote
from sitekit.validators import one_line

MAX_DETAILS = 2000  # characters of what the traveller says they need
OFFER_SALT = "quote_requests.offer"


class QuoteRequestStatus(models.TextChoices):
    OPEN = "open", _("open")
    ANSWERED = "answered", _("answered")  # staff sent an offer or a reply
    CLOSED = "closed", _("closed")  # nothing to offer, or no longer needed


class QuoteRequest(models.Model):
    reference = models.CharField(_("reference"), max_length=12, unique=True)
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=QuoteRequestStatus.choices,
        default=QuoteRequestStatus.OPEN,
        db_index=True,
    )
    # The trip, as the traveller describes it.
    origin = models.CharField(_("from"), max_length=500)
    destination = models.CharField(_("to"), max_length=500, blank=True)
    pickup_at = models.DateTimeField(_("pickup"))
    passengers = models.PositiveSmallIntegerField(_("passengers"), null=True, blank=True)
    luggage = models.PositiveSmallIntegerField(_("pieces of luggage"), null=True, blank=True)
    vehicle_class = models.CharField(_("class wished for"), max_length=20, blank=True)
    details = models.TextField(_("what is needed"), max_length=MAX_DETAILS, blank=True)
    # Why the tariff could not price it, as the quote answered (e.g. vehicle_too_small); empty: not said.
    reason = models.CharField(_("why no price"), max_length=40, blank=True)
    # Who asks.
    name = models.CharField(_("name"), max_length=200)
    email = models.EmailField(_("e-mail"))
    phone = models.CharField(_("phone"), max_length=50, blank=True)
    locale = models.CharField(_("language"), max_length=2, default="en")
    channel = models.CharField(_("channel"), max_length=10, choices=BookingChannel.choices)
    api_token = models.ForeignKey(
        "access.ApiToken",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="quote_requests",
        verbose_name=_("API token"),
    )
    staff_note = models.TextField(_("staff note"), blank=True, help_text=_("For staff only."))
    # Staff's offer: its lines (OfferLine), the class it is driven in, until when it may be accepted.
    offer_vehicle_class = models.CharField(
        _("class offered"),
        max_length=20,
        choices=VehicleClass.Code.choices,
        blank=True,
        help_text=_("The booking is made in this class; its tariff's VAT rate applies to the offer."),
    )
    offer_valid_until = models.DateField(
        _("offer valid until"),
        null=True,
        blank=True,
        help_text=_("The last day the traveller can accept it."),
    )
    offer_sent_at = models.DateTimeField(_("offer sent"), null=True, blank=True)
    # The offer as it was sent (its price as a quote record, its last day): what the link books, whatever
    # staff edit above until they send again.
    sent_offer = models.JSONField(null=True, blank=True, editable=False)
    # The payment page of the booking made from it, while that booking waits for its payment: a second click
    # goes there again (the provider opens one page per booking).
    payment_url = models.URLField(max_length=2000, blank=True, editable=False)
    payment_page_until = models.DateTimeField(null=True, blank=True, editable=False)  # when that page closes
    booking = models.OneToOneField(
        "booking.Booking",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="quote_request",
        verbose_name=_("booking"),
        help_text=_("Made when the traveller accepted the offer."),
    )
    created_at = models.DateTimeField(_("asked at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("changed at"), auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name, verbose_name_plural = _("quote request"), _("quote requests")

    def __str__(self) -> str:
        return self.reference

    @property
    def offer(self) -> "SentOffer | None":
        """Staff's offer as the traveller got it; None until it is sent."""
        if self.sent_offer is None:
            return None
        quote = Quote.from_record(self.sent_offer["quote"])
        return SentOffer(
            quote=quote,
            vehicle_class=quote.vehicle_class,
            lines=list(quote.lines),
            price=quote.price,
            valid_until=date.fromisoformat(self.sent_offer["valid_until"]),
            url=self.offer_link(),
            booking_reference=self.booking.reference if self.booking else None,
        )

    def offer_link(self) -> str:
        """The link in the offer's mail: it opens the offer, which books and pays it (web/offer_page.py)."""
        token = signing.Signer(salt=OFFER_SALT).sign(self.reference)
        return f"{settings.PUBLIC_BASE_URL}{reverse('quote-offer')}?offer={token}"


class OfferLine(models.Model):
    """A line of staff's offer, as the invoice will print it: "Two vans, Vienna–Salzburg", 1,200.00 €."""

    request = models.ForeignKey(QuoteRequest, on_delete=models.CASCADE, related_name="offer_lines")
    label = models.CharField(_("line"), max_length=200, validators=[one_line])
    amount = models.DecimalField(_("amount (gross, EUR)"), max_digits=9, decimal_places=2)

    class Meta:
        ordering = ["pk"]
        verbose_name, verbose_name_plural = _("offer line"), _("offer lines")

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True)
class SentOffer:
    quote: Quote  # the price as booked from it
    vehicle_class: str
    lines: list[PriceLine]
    price: Decimal  # gross, the lines' sum
    valid_until: date
    url: str
    booking_reference: str | None  # once the traveller booked it
