"""Phone bookings: staff take a booking for a caller. The server routes and prices it as for any checkout;
the customer pays through a payment link e-mailed to them, or staff mark it paid by invoice or cash, or put
it on a company's account."""

from dataclasses import replace

from django.db import models, transaction
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import history, on_account
from booking import tasks as booking_tasks
from booking.checkout import (
    BookingRequest,
    PricedRide,
    price_the_ride,
    store_booking,
)
from booking.models import Booking, BookingChannel, PaymentMethod
from corporate.models import CompanyAccount
from dispatch import staff_pickups
from payments import payment_updates
from payments.checkout import open_payment_page
from payments.providers import payment_provider
from pricing.money import to_cents
from pricing.quote import PriceByHand, price_by_hand_of, with_price_by_hand, without_price_by_hand


class PhonePayment(models.TextChoices):
    LINK = "link", _("payment link by e-mail")
    INVOICE = PaymentMethod.INVOICE.value, _("invoice (marked paid now)")
    CASH = PaymentMethod.CASH.value, _("cash (marked paid now)")
    ACCOUNT = PaymentMethod.ACCOUNT.value, _("on a company's account (its monthly invoice)")


def quote(
    ride: BookingRequest,
    *,
    short_notice: bool = False,
    past_ride: bool = False,
    price_by_hand: PriceByHand | None = None,
    company_account: CompanyAccount | None = None,
) -> PricedRide:
    """What the booking would cost, with the same checks as booking it; nothing is stored. A price set by
    hand replaces the tariff's (dispatch/staff_pickups.py says which pickups staff may give)."""
    if ride.pickup is not None:
        staff_pickups.ensure_pickup(
            ride.pickup, short_notice=short_notice, past_ride=past_ride, account=company_account
        )
    priced = price_the_ride(ride)
    if price_by_hand is None:
        return priced
    return replace(priced, quote=with_price_by_hand(priced.quote, price_by_hand))


def book_by_phone(
    *,
    ride: BookingRequest,
    payment: str,
    short_notice: bool,
    user,
    actor: str,
    company_account: CompanyAccount | None = None,
    past_ride: bool = False,
    price_by_hand: PriceByHand | None = None,
) -> Booking:
    """Store the booking at the server's price, or at the price staff set by hand with its reason, and start
    its payment. `short_notice` takes a pickup inside the lead time (staff know a driver is free),
    `past_ride` one that has passed (a ride driven without a booking); the history says so. On a company's
    account staff may choose any active account (they vouch for the traveller); the history names who did
    it."""
    if payment == PhonePayment.LINK and not ride.email:
        raise DomainError(_("A payment link needs the customer's e-mail address."), field="email")
    if payment == PhonePayment.ACCOUNT and (company_account is None or not company_account.active):
        raise DomainError(_("Choose an active company account."), field="company_account")
    provider = payment_provider() if payment == PhonePayment.LINK else None
    on_account_of = company_account if payment == PhonePayment.ACCOUNT else None
    priced = quote(
        ride,
        short_notice=short_notice,
        past_ride=past_ride,
        price_by_hand=price_by_hand,
        company_account=on_account_of,
    )
    booked = _booked(short_notice=short_notice, past_ride=past_ride, priced=priced)
    if on_account_of is not None:
        with transaction.atomic():
            booking = store_booking(ride, priced, channel=BookingChannel.PHONE)
            _record_booked(booking, booked, actor)
            if not on_account_of.allows(booking.email):
                vouched = history.said(
                    "Put on the account of {company} by staff, though its bookers do not list {email}.",
                    company=on_account_of.name,
                    email=booking.email or "-",
                )
                history.record(booking, history.Kind.PAYMENT, vouched, actor=actor)
            on_account.book_by_staff(booking, on_account_of, actor=actor)
        return booking
    booking = store_booking(ride, priced, channel=BookingChannel.PHONE)
    _record_booked(booking, booked, actor)
    if provider is None:
        return payment_updates.mark_paid(booking.pk, method=payment, user=user, actor=actor)
    session = open_payment_page(provider, booking)  # a provider failure leaves it pending, and is raised
    booking_tasks.send_payment_link.enqueue(booking.pk, session.url, str(priced.quote.price))
    link = history.said("Payment link e-mailed to {email}.", email=booking.email)
    history.record(booking, history.Kind.PAYMENT, link, actor=actor)
    return booking


def _booked(*, short_notice: bool, past_ride: bool, priced: PricedRide) -> list[history.Said]:
    """What the history says of the booking: how it was taken, and a price set by hand with its reason."""
    if past_ride:
        booked = [history.said("Booked by phone as a past ride (its pickup had passed).")]
    elif short_notice:
        booked = [history.said("Booked by phone at short notice (the lead time was not applied).")]
    else:
        booked = [history.said("Booked by phone.")]
    by_hand = price_by_hand_of(priced.quote)
    if by_hand is not None:
        tariff = without_price_by_hand(priced.quote).price
        booked.append(
            history.said(
                "Price set by hand: {price} instead of the tariff's {tariff}. Reason: {reason}",
                price=history.eur(to_cents(by_hand.amount)),
                tariff=history.eur(to_cents(tariff)),
                reason=by_hand.reason,
            )
        )
    return booked


def _record_booked(booking: Booking, booked: list[history.Said], actor: str) -> None:
    for said in booked:
        history.record(booking, history.Kind.CHANGE, said, actor=actor)
