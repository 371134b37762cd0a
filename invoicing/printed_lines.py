"""A priced line as an issued document keeps it: worded in the document's language, then printed as exact
text with what it is and its VAT rate (the accountant's export books it by them)."""

from booking.presentation import Line
from pricing.lines import PricedLine


def worded(line: PricedLine, label: str) -> Line:
    return Line(label, line.amount, line.kind, line.vat_rate)


def printed(line: Line) -> dict[str, str]:
    """A worded line as an issued document keeps it: its words in the document's language, its amount, and
    what it is and its VAT rate (the accountant's export books it by them)."""
    kept = {"label": line.label, "amount": str(line.amount)}
    if line.kind is not None:
        kept["kind"] = line.kind.value
    if line.vat_rate is not None:
        kept["vat_rate"] = str(line.vat_rate)
    return kept
