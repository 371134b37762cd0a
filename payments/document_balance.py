"""The rule a booking's issued documents keep (docs/operations/invoices.md): what they invoice less what
they credit is what was received less what was refunded. The documents are invoicing's, the money is the
ledger's: only payments sees both."""

from dataclasses import dataclass

from django.db.models import Sum

from booking.models import Booking
from invoicing import documents
from invoicing.models import CreditNote
from payments import ledger, refunds


@dataclass(frozen=True)
class Balance:
    invoiced_cents: int
    credited_cents: int
    received_cents: int
    refunded_cents: int

    @property
    def documented_cents(self) -> int:
        return self.invoiced_cents - self.credited_cents

    @property
    def kept_cents(self) -> int:
        return self.received_cents - self.refunded_cents

    @property
    def adds_up(self) -> bool:
        return self.documented_cents == self.kept_cents


def balance(booking: Booking) -> Balance:
    """Sum of the invoices' gross (of a return trip's invoice, the ride's part) − sum of the credit notes'
    gross against money received − money refunded. It adds up for every booking whose payment was invoiced;
    one paid before invoices existed, or on a company account (invoiced collectively), shows what it lacks.
    The collective invoice and the company's payments on account are left out on both sides: they settle its
    month, not the ride."""
    credited = CreditNote.objects.filter(booking=booking).aggregate(total=Sum("gross_cents"))["total"]
    return Balance(
        invoiced_cents=documents.invoiced_cents(booking),
        credited_cents=credited or 0,
        received_cents=ledger.received_cents(booking, on_account=False),
        refunded_cents=refunds.refunded_cents(booking),
    )
