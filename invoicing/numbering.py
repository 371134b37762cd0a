"""Gapless yearly numbers for issued documents (invoices, credit notes; docs/operations/invoices.md): each
series has a counter row per year, locked by the issuing transaction until it ends, so no two workers draw
the same number and a transaction that rolls back gives its number back before anyone else can draw it."""

from typing import TypeVar

from invoicing.models import CreditNoteYear, InvoiceYear

Counter = TypeVar("Counter", InvoiceYear, CreditNoteYear)


def next_number(counter: type[Counter], year: int) -> int:
    """The year's next number of `counter`'s series (a model with `year` and `last_number`). The year's row
    is created if missing (ON CONFLICT DO NOTHING: a second worker creating it at the same moment waits for
    the first and then finds it), then locked for the rest of the caller's transaction."""
    counter.objects.bulk_create([counter(year=year)], ignore_conflicts=True)
    row = counter.objects.select_for_update().get(year=year)
    row.last_number += 1
    row.save(update_fields=["last_number"])
    return row.last_number
