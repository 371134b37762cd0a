"""A company's collective invoice as payments issues it (invoicing/collective_invoices.py): each ride on
account with what it still owes after it, read from payments' records and handed over."""

from datetime import date
from decimal import Decimal

from booking.models import Booking
from corporate.models import CompanyAccount
from invoicing import collective_invoices as documents
from invoicing.models import Invoice
from payments.models import Surcharge

# Owed after the ride and not asked for through a payment link: billed with the ride.
OWED_AFTER_RIDE = (Surcharge.Reason.WAITING, Surcharge.Reason.NO_SHOW)


def owed_after_ride(booking: Booking) -> list[tuple[str, Decimal]]:
    """The ride's waiting time and no-show fee still owed, in the active language, in the order charged."""
    owed = Surcharge.objects.filter(
        booking=booking, status=Surcharge.Status.PENDING, reason__in=OWED_AFTER_RIDE, payment_url=""
    ).order_by("pk")
    return [(str(Surcharge.Reason(surcharge.reason).label), surcharge.amount) for surcharge in owed]


def issue(account: CompanyAccount, month: date) -> tuple[Invoice | None, bool]:
    """The account's collective invoice for the month and whether it was issued now (documents.issue)."""
    return documents.issue(account, month, owed_after_ride)


def issue_month(month: date) -> list[Invoice]:
    """Every company's collective invoice for the month still missing (documents.issue_month)."""
    return documents.issue_month(month, owed_after_ride)
