"""Money (docs/decisions.md §1): Decimal euros, integer cents at the payment edge, one currency."""

from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

CURRENCY = "EUR"  # ISO 4217; payment providers want it in lower case
CENT = Decimal("0.01")
HUNDRED = Decimal("100")


def to_cents(euros: Decimal) -> int:
    """Exact cents of an amount that is already a whole number of cents (prices are)."""
    cents = euros * 100
    if cents != cents.to_integral_value():
        raise ValueError(f"{euros} EUR is not a whole number of cents")
    return int(cents)


def from_cents(cents: int) -> Decimal:
    return (Decimal(cents) / 100).quantize(CENT)


def to_cent(euros: Decimal) -> Decimal:
    """Rounded half up to the cent."""
    return euros.quantize(CENT, ROUND_HALF_UP)


def round_up(value: Decimal, step: Decimal) -> Decimal:
    """The smallest multiple of `step` that is not below `value`."""
    return (value / step).to_integral_value(rounding=ROUND_CEILING) * step


def percent_of(cents: int, percent: Decimal) -> int:
    """`percent` % of an amount in cents (a fee's share of a price), to the cent, half up."""
    return int((cents * percent / HUNDRED).to_integral_value(ROUND_HALF_UP))


def vat_of(gross_cents: int, rate: Decimal) -> int:
    """The VAT contained in a gross amount at `rate` (0.10), to the cent, half up: gross × rate / (1 + rate).
    The net is the gross less this, so net + VAT is always the gross."""
    return int((Decimal(gross_cents) * rate / (1 + rate)).to_integral_value(ROUND_HALF_UP))
