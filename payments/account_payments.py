"""What companies owe on their collective invoices (docs/operations/business.md): each invoice's paid and
open amounts from the payments staff recorded, overdue once its due date has passed (Vienna) with money
still open, and the recording of a payment, refused above what is open. A recorded payment is money in
the ledger: a received payment on account, shared over the invoice's rides, the oldest ride first, and a
line in each ride's history."""

from dataclasses import dataclass
from datetime import date, datetime, time

from django.db import transaction
from django.db.models import F, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import history
from booking.models import Booking
from invoicing.models import CollectiveInvoiceLine, Invoice
from payments.models import VIENNA, AccountPayment, Payment, PaymentShare
from pricing.money import from_cents
from sitekit import l10n


class PaymentRefused(DomainError):
    code = "account_payment_refused"


@dataclass(frozen=True)
class Standing:
    gross_cents: int
    paid_cents: int
    open_cents: int
    overdue: bool

    @property
    def status(self) -> str:
        """ "paid", "overdue" or "open"."""
        if self.open_cents <= 0:
            return "paid"
        return "overdue" if self.overdue else "open"


STATUS_LABELS = {"paid": _("paid"), "open": _("open"), "overdue": _("overdue")}


def today() -> date:
    return timezone.localdate(timezone=VIENNA)


def with_standing(invoices: QuerySet[Invoice]) -> QuerySet[Invoice]:
    """Collective invoices annotated with `paid_cents` and `open_cents` (one query, for lists and filters)."""
    paid = (
        AccountPayment.objects.filter(invoice=OuterRef("pk"), payment__state=Payment.State.RECEIVED)
        .order_by()
        .values("invoice")
        .annotate(total=Sum("payment__amount_cents"))
        .values("total")
    )
    return invoices.filter(kind=Invoice.Kind.COLLECTIVE).annotate(
        paid_cents=Coalesce(Subquery(paid, output_field=IntegerField()), Value(0)),
        open_cents=F("gross_cents") - Coalesce(Subquery(paid, output_field=IntegerField()), Value(0)),
    )


def open_invoices(invoices: QuerySet[Invoice] | None = None) -> QuerySet[Invoice]:
    standing = with_standing(Invoice.objects.all() if invoices is None else invoices)
    return standing.filter(open_cents__gt=0)  # type: ignore[misc]  # open_cents: with_standing's annotation


def overdue_invoices(
    invoices: QuerySet[Invoice] | None = None, *, on: date | None = None
) -> QuerySet[Invoice]:
    return open_invoices(invoices).filter(due_on__lt=on or today())


def standing(invoice: Invoice, *, on: date | None = None) -> Standing:
    received = invoice.account_payments.filter(payment__state=Payment.State.RECEIVED)
    paid = received.aggregate(total=Sum("payment__amount_cents"))["total"] or 0
    open_cents = max(invoice.gross_cents - paid, 0)
    overdue = open_cents > 0 and invoice.due_on is not None and invoice.due_on < (on or today())
    return Standing(gross_cents=invoice.gross_cents, paid_cents=paid, open_cents=open_cents, overdue=overdue)


def totals(invoices: QuerySet[Invoice] | None = None, *, on: date | None = None) -> tuple[int, int]:
    """Open and overdue cents over the collective invoices given (all by default)."""
    open_total = sum(open_invoices(invoices).values_list("open_cents", flat=True))  # type: ignore[misc]  # open_cents, as above
    overdue_total = sum(overdue_invoices(invoices, on=on).values_list("open_cents", flat=True))  # type: ignore[misc]  # open_cents, as above
    return open_total, overdue_total


def record(
    invoice_id: int, *, amount_cents: int, received_on: date, note: str = "", user=None
) -> AccountPayment:
    """Record money a company transferred against its collective invoice: a received payment shared over
    the invoice's rides. The rides are locked first (by pk, as every writer of a booking's money locks the
    booking first), then the invoice, so two staff recording at once cannot together pay more than is open."""
    with transaction.atomic():
        rides = CollectiveInvoiceLine.objects.filter(invoice_id=invoice_id).values("booking_id")
        list(Booking.objects.select_for_update().filter(pk__in=rides).order_by("pk").values_list("pk"))
        invoice = Invoice.objects.select_for_update().get(pk=invoice_id)
        if invoice.kind != Invoice.Kind.COLLECTIVE:
            raise PaymentRefused(_("Payments on account are recorded against collective invoices only."))
        if amount_cents <= 0:
            raise PaymentRefused(_("The amount must be more than zero."))
        open_cents = standing(invoice).open_cents
        if amount_cents > open_cents:
            raise PaymentRefused(
                format_lazy(
                    _("The amount is more than the {open} still open on this invoice."),
                    open=lazy(l10n.money, str)(from_cents(open_cents), invoice.currency),
                )
            )
        payment = Payment.objects.create(
            kind=Payment.Kind.ACCOUNT,
            state=Payment.State.RECEIVED,
            amount_cents=amount_cents,
            currency=invoice.currency,
            recorded_by=user,
            received_at=start_of(received_on),
        )
        shares = shared_out(amount_cents, lines_owing(invoice))
        PaymentShare.objects.bulk_create(
            PaymentShare(payment=payment, booking_id=booking_id, amount_cents=cents)
            for booking_id, cents in shares
        )
        _told_on_each_ride(invoice, shares, user)
        return AccountPayment.objects.create(invoice=invoice, payment=payment, note=note)


def _told_on_each_ride(invoice: Invoice, shares: list[tuple[int, int]], user) -> None:
    """Each ride's history says what of the company's payment it received, as it does for a card payment."""
    rides = Booking.objects.in_bulk([booking_id for booking_id, _ in shares])
    for booking_id, cents in shares:
        history.record(
            rides[booking_id],
            history.Kind.PAYMENT,
            history.said(
                "Received {amount} on account, part of the company's payment on collective invoice {number}.",
                amount=history.eur(cents),
                number=invoice.number,
            ),
            actor=history.staff(user) if user else "staff",
        )


def start_of(day: date) -> datetime:
    """A day the bank names, as a time: its start in Vienna (it is that day in every Vienna report)."""
    return datetime.combine(day, time.min, tzinfo=VIENNA)


def lines_owing(invoice: Invoice) -> list[tuple[int, int]]:
    """The invoice's rides, the oldest first (by pickup, then reference), with what each still owes:
    (booking pk, cents)."""
    paid = Sum(
        "booking__payment_shares__amount_cents",
        filter=Q(
            booking__payment_shares__payment__kind=Payment.Kind.ACCOUNT,
            booking__payment_shares__payment__state=Payment.State.RECEIVED,
        ),
    )
    lines = (
        invoice.lines.annotate(paid=Coalesce(paid, Value(0)))
        .order_by(F("booking__pickup_at").asc(nulls_last=True), "booking__reference")
        .values_list("booking_id", "gross_cents", "paid")
    )
    return [(booking_id, gross - paid) for booking_id, gross, paid in lines]


def shared_out(cents: int, owing: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A payment's shares: each ride in turn gets what it still owes until the money is used up; never
    more than a ride owes (money beyond all the lines, which an invoice's gross never leaves, is unshared)."""
    shares = []
    for booking_id, open_cents in owing:
        piece = min(cents, open_cents)
        if piece > 0:
            shares.append((booking_id, piece))
            cents -= piece
    return shares
