"""Phone bookings: staff take a booking for a caller. The server routes and prices it as for any checkout;
the customer pays through a payment link e-mailed to them, or staff mark it paid by invoice or cash."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from booking import history
from booking import tasks as booking_tasks
from booking.checkout import (
    BookingRequest,
    PricedRide,
    ensure_bookable,
    open_payment_page,
    price_the_ride,
    store_booking,
)
from booking.models import Booking, BookingChannel, PaymentMethod
from chauffeur.errors import DomainError
from payments import payment_updates
from payments.providers import payment_provider

NO_PROVIDER = "none"  # a booking paid outside the payment provider


class PhonePayment(models.TextChoices):
    LINK = "link", _("payment link by e-mail")
    INVOICE = PaymentMethod.INVOICE.value, _("invoice (marked paid now)")
    CASH = PaymentMethod.CASH.value, _("cash (marked paid now)")


def quote(ride: BookingRequest, *, short_notice: bool = False) -> PricedRide:
    """What the booking would cost, with the same checks as booking it; nothing is stored."""
    if not short_notice:
        ensure_bookable(ride.pickup)
    return price_the_ride(ride)


def book_by_phone(*, ride: BookingRequest, payment: str, short_notice: bool, user, actor: str) -> Booking:
    """Store the booking at the server's price and start its payment. `short_notice` takes a pickup inside
    the lead time (staff know a driver is free); the history says so."""
    if payment == PhonePayment.LINK and not ride.email:
        raise DomainError(_("A payment link needs the customer's e-mail address."), field="email")
    provider = payment_provider() if payment == PhonePayment.LINK else None
    priced = quote(ride, short_notice=short_notice)
    booking = store_booking(
        ride, priced, provider.name if provider else NO_PROVIDER, channel=BookingChannel.PHONE
    )
    booked = (
        history.said("Booked by phone at short notice (the lead time was not applied).")
        if short_notice
        else history.said("Booked by phone.")
    )
    history.record(booking, history.Kind.CHANGE, booked, actor=actor)
    if provider is None:
        return payment_updates.mark_paid(booking.pk, method=payment, user=user, actor=actor)
    session = open_payment_page(provider, booking)  # a provider failure leaves it pending, and is raised
    booking_tasks.send_payment_link.enqueue(booking.pk, session.url, str(priced.quote.price))
    link = history.said("Payment link e-mailed to {email}.", email=booking.email)
    history.record(booking, history.Kind.PAYMENT, link, actor=actor)
    return booking
