"""What companies owe on their collective invoices (docs/operations/business.md): each invoice's paid and
open amounts from the payments staff recorded, overdue once its due date has passed (Vienna) with money
still open, and the recording of a payment, refused above what is open."""

from dataclasses import dataclass
from datetime import date
from zoneinfo import ZoneInfo

from django.db import transaction
from django.db.models import F, IntegerField, OuterRef, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from invoicing.models import Invoice
from payments.models import AccountPayment
from pricing.money import from_cents
from sitekit import l10n

VIENNA = ZoneInfo("Europe/Vienna")


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
        AccountPayment.objects.filter(invoice=OuterRef("pk"))
        .order_by()
        .values("invoice")
        .annotate(total=Sum("amount_cents"))
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
    paid = invoice.account_payments.aggregate(total=Sum("amount_cents"))["total"] or 0
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
    """Record money a company transferred against its collective invoice. The invoice's row is locked, so two
    staff recording at once cannot together pay more than is open."""
    with transaction.atomic():
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
        return AccountPayment.objects.create(
            invoice=invoice, amount_cents=amount_cents, received_on=received_on, note=note, recorded_by=user
        )
