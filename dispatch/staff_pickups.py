"""What pickup time staff may give a ride, on the phone form and the change form: the lead time applies unless
they take the ride at short notice (they know a driver is free); a pickup that has passed only when they
record a past ride (a permission of its own), and never on a company's account whose collective invoice of
that month is issued already (it would bill the ride nowhere: staff take it by invoice or cash, or correct
that invoice by hand)."""

from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking.checkout import ensure_bookable
from corporate.models import CompanyAccount
from invoicing import collective_invoices
from sitekit import l10n

# A pickup typed during the call ("now") has passed by the time the form is sent: that is not a past ride.
PASSED_AFTER = timedelta(minutes=15)


class PickupPassed(DomainError):
    code = "pickup_passed"


def has_passed(pickup: datetime, now: datetime | None = None) -> bool:
    return pickup < (now or timezone.now()) - PASSED_AFTER


def ensure_pickup(
    pickup: datetime, *, short_notice: bool, past_ride: bool, account: CompanyAccount | None = None
) -> None:
    """Refuse a pickup staff may not give (DomainError on the field `pickup`); nothing is stored yet."""
    if not has_passed(pickup):
        if past_ride:
            raise PickupPassed(
                _("“Record a past ride” is for a pickup that has passed; this one has not."),
                field="past_ride",
            )
        if not short_notice:
            ensure_bookable(pickup)
        return
    if not past_ride:
        raise PickupPassed(
            format_lazy(
                _(
                    "The pickup {pickup} has passed. To record a ride that was driven, tick “Record a past "
                    "ride”; otherwise correct the date."
                ),
                pickup=l10n.day_time(pickup),
            ),
            field="pickup",
        )
    if account is not None and (billed := collective_invoices.issued_for(account, pickup)) is not None:
        raise PickupPassed(
            format_lazy(
                _(
                    "The collective invoice {number} of {company} for that month is issued: a past ride of "
                    "that month cannot go on the account. Take it paid by invoice or cash, or correct that "
                    "invoice by hand."
                ),
                number=billed.number,
                company=account.name,
            ),
            field="pickup",
        )
