"""Priced lines: what a booking costs, line by line, each with what it is (a kind from a closed set), its text
key, its amount and its VAT rate. The pages, the API's price, the invoices and credit notes read these lines;
the quote engine's lines become them in `Quote.priced_lines` (pricing/quote.py), a charge after the ride or a
price difference in payments/priced_lines.py."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum

from pricing.money import to_cents


class LineKind(StrEnum):
    FARE = "fare"  # the ride itself: base fare, distance, hours, a tour, top-ups, the rounding
    EXTRA = "extra"  # something added to the ride (a surcharge for leaving Zone A)
    WAITING = "waiting"
    NO_SHOW_FEE = "no_show_fee"
    ADJUSTMENT = "adjustment"  # staff's price set by hand, a price difference after a change
    DISCOUNT = "discount"


@dataclass(frozen=True)
class PricedLine:
    """`code` is the line's text key: the pages word it by it (booking/presentation.py), the API shows it as
    the line's `code`. `amount` is gross euros, VAT included, exact: the engine's lines are whole cents but
    for an hourly line at a rate of odd cents (2.5 h × 45.01), which the rounding line makes whole.
    `label` is the API's English text, `params` the line's numbers for wording it in the reader's language."""

    kind: LineKind
    code: str
    amount: Decimal
    vat_rate: Decimal  # 0.10 = 10 %
    label: str = ""
    params: Mapping = field(default_factory=dict, hash=False)

    @property
    def amount_cents(self) -> int:
        return to_cents(self.amount)
