"""Booking on a company's account (docs/operations/booking-on-account.md): no card, the ride goes
onto the company's monthly collective invoice. The booking is paid at once (nothing is received, no
invoice of its own). Who may book: an active account whose bookers allow the traveller's e-mail, proven
by an API token tied to the account, by a one-time link mailed to the address (the booking page: only to
an address an active account allows), or vouched for by staff (the phone form)."""

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.core import signing
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import links, selectors, tasks, transitions, trips
from booking.checkout import BookingRequest, CheckoutResult
from booking.models import Booking, BookingChannel, BookingStatus, PaymentMethod
from corporate.models import CompanyAccount
from operator_profile import legal
from sitekit import mail_budget

logger = logging.getLogger(__name__)

# The confirmation link of the booking page lives as long as an unpaid checkout: the booking expires with it
# (payments/reconciliation.py expires pending bookings without a payment page after 30 minutes).
LINK_LIFETIME = timedelta(minutes=30)


class AccountNotAllowed(DomainError):
    code = "account_not_allowed"


def account_for(account: CompanyAccount | None, email: str) -> CompanyAccount:
    """The account, if it is active and its bookers allow this e-mail address; else AccountNotAllowed
    (one refusal for every reason: nobody learns which addresses belong to a company)."""
    if account is None or not account.active or not account.allows(email):
        raise AccountNotAllowed(
            _(
                "This booking cannot be made on a company's account: the token is tied to no active company "
                "account, or the traveller's e-mail address is not one of its bookers."
            ),
            hint="Book with paymentMethod `checkout` (the traveller pays by card), or ask the operator to "
            "tie your token to the company's account and list the traveller's address among its bookers.",
        )
    return account


def checkout_on_account(
    *,
    amount_cents: int,
    ride: BookingRequest,
    account: CompanyAccount | None,
    channel: str,
    api_token_id: int | None = None,
) -> CheckoutResult:
    """REST v1 and MCP: a token tied to a company account books for one of its bookers; the booking is paid
    on account at once. Refused before anything is stored."""
    account = account_for(account, ride.email)
    trip = trips.priced_trip(ride, amount_cents)
    actor = f"token {api_token_id}" if api_token_id else "api"
    with transaction.atomic():
        booking = _store(trip, account, channel=channel, api_token_id=api_token_id)
        for booked in trips.locked_legs(booking):
            transitions.apply(booked, BookingStatus.PAID, actor=actor)
    return CheckoutResult(booking=booking, session=None)


@dataclass(frozen=True)
class LinkRequested:
    """The booking page's answer to a booking on account, the same for every address."""

    status: str = "check_email"


def request_on_account(*, amount_cents: int, ride: BookingRequest) -> LinkRequested:
    """The booking page: a booking for an address an active account allows is stored pending and a
    one-time link goes to it (at most ANONYMOUS_MAILS_PER_RECIPIENT an hour: sitekit/mail_budget.py). For
    any other address nothing is stored and nothing is sent, so strangers cannot make us mail anyone;
    the answer is the same for every address (no enumeration of a company's bookers)."""
    trip = trips.priced_trip(ride, amount_cents)
    if accounts_allowing(ride.email) is None or not mail_budget.may_mail(ride.email):
        logger.info("Booking on account asked for an address no account allows, or over its mails: none sent")
        return LinkRequested()
    with transaction.atomic():
        booking = _store(trip, None, channel=BookingChannel.WEBSITE)
        tasks.send_account_link.enqueue(booking.pk)  # the link is signed when it is sent: no secret queued
    return LinkRequested()


def _store(trip: trips.Trip, account: CompanyAccount | None, **origin) -> Booking:
    return trips.store_trip(
        trip,
        payment_method=PaymentMethod.ACCOUNT,
        company_account=account,
        accepted_terms=legal.current(legal.Kind.TERMS),
        terms_accepted_at=timezone.now(),
        **origin,
    )


def book_by_staff(booking: Booking, account: CompanyAccount, *, actor: str) -> None:
    """The phone form: staff put a booking they hold row-locked on any active account (they vouch for the
    traveller, whose address the account need not list); the history records who did it."""
    if not account.active:
        raise AccountNotAllowed(_("This company account is inactive: no new bookings on account."))
    booking.payment_method = PaymentMethod.ACCOUNT
    booking.company_account = account
    booking.save(update_fields=["payment_method", "company_account", "updated_at"])
    transitions.apply(booking, BookingStatus.PAID, actor=f"{actor} (on account of {account.name})")


# --- the booking page's one-time link -------------------------------------------------------------------


class LinkOutcome:
    CONFIRMED = "confirmed"  # booked on account now
    NOT_ALLOWED = "not_allowed"  # the address is no booker of an active account: pay by card instead
    INVALID = "invalid"  # forged, expired, or its booking no longer waits for it (used, expired, cancelled)


@dataclass(frozen=True)
class LinkResult:
    outcome: str
    booking: Booking | None = None


def booking_of_link(token: str) -> Booking | None:
    """The booking a genuine, unexpired link names while it still waits for it; None otherwise."""
    try:
        data = signing.TimestampSigner(salt=links.ACCOUNT_LINK_SALT).unsign_object(
            token, max_age=LINK_LIFETIME
        )
        booking = Booking.objects.get(pk=data["b"], reference=data["r"])
        mailed_to = data["e"]
    except (signing.BadSignature, Booking.DoesNotExist, KeyError, TypeError, ValueError):
        return None
    return booking if _waiting(booking) and links.mailbox(booking.email) == mailed_to else None


def _waiting(booking: Booking) -> bool:
    return (
        booking.status == BookingStatus.PENDING_PAYMENT
        and booking.payment_method == PaymentMethod.ACCOUNT
        and booking.company_account_id is None
    )


def confirm_link(token: str) -> LinkResult:
    """Opening the mailed link proves the address is the traveller's: the booking goes on the first active
    account that allows it. Single use: a booking no longer pending refuses the link, changing nothing."""
    found = booking_of_link(token)
    if found is None:
        return LinkResult(LinkOutcome.INVALID)
    with transaction.atomic():
        booking = selectors.locked_booking(found.pk)
        if not _waiting(booking) or links.mailbox(booking.email) != links.mailbox(
            found.email
        ):  # changed meanwhile
            return LinkResult(LinkOutcome.INVALID)
        account = accounts_allowing(booking.email)
        if account is None:
            return LinkResult(LinkOutcome.NOT_ALLOWED, booking)
        for ride in trips.locked_legs(booking):  # a return trip's way back with its way out
            ride.company_account = account
            ride.save(update_fields=["company_account", "updated_at"])
            transitions.apply(ride, BookingStatus.PAID, actor=f"traveller ({booking.email}, mailed link)")
    return LinkResult(LinkOutcome.CONFIRMED, booking)


def accounts_allowing(email: str) -> CompanyAccount | None:
    """The active account whose bookers allow the address (the first by name when several do)."""
    active = CompanyAccount.objects.filter(active=True)
    return next((account for account in active if account.allows(email)), None)
