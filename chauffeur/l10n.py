"""Money and times as the active language writes them: "74,00 €" and "1. Dezember 2026, 10:00" in German,
"€74.00" and "1 December 2026, 10:00" in English. Pages and e-mails use these (via the `l10n_extras`
template filters); the APIs keep their plain ISO values."""

from datetime import datetime
from decimal import Decimal

from django.utils import formats, timezone, translation

NBSP = "\u00a0"


def money(amount: Decimal | float | int | str, currency: str = "EUR") -> str:
    number = formats.number_format(Decimal(str(amount)), 2, use_l10n=True, force_grouping=True)
    symbol = "€" if currency.upper() == "EUR" else currency.upper()
    if translation.get_language() == "de":
        return f"{number}{NBSP}{symbol}"
    return f"{symbol}{number}"


def when(moment: datetime) -> str:
    """A moment in the operator's time zone (Europe/Vienna), date and time."""
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")
