"""The one formatting rule for money and times that people read (pages, e-mails, the admin, the staff CSV):

| value            | German                     | English                   |
|------------------|----------------------------|---------------------------|
| `money`          | 74,00 €                    | €74.00                    |
| `when`           | 1. Dezember 2026, 10:00    | 1 December 2026, 10:00    |
| `day`            | Sa., 28.11.2026            | Sat 28.11.2026            |
| `day_time`       | Sa., 28.11.2026, 10:00     | Sat 28.11.2026, 10:00     |
| `short`          | 28.11.2026 10:00           | 28.11.2026 10:00          |

English keeps Vienna's day-month order and 24-hour clock (sitekit/formats/en). Times are shown in the
operator's time zone (Europe/Vienna). The `l10n_extras` template filters of the same names call these;
the APIs keep their plain ISO values."""

from datetime import date, datetime
from decimal import Decimal

from django.utils import formats, timezone, translation

NBSP = "\u00a0"
# Django's "D" is the weekday's abbreviation in the active language (Sat, Sa).
DAY_FORMATS = {"de": "D., d.m.Y", "en": "D d.m.Y"}
TIME_FORMAT = "H:i"
SHORT_FORMAT = "d.m.Y H:i"  # the same in both languages


def money(amount: Decimal | float | int | str, currency: str = "EUR") -> str:
    number = formats.number_format(Decimal(str(amount)), 2, use_l10n=True, force_grouping=True)
    symbol = "€" if currency.upper() == "EUR" else currency.upper()
    if _german():
        return f"{number}{NBSP}{symbol}"
    return f"{symbol}{number}"


def when(moment: datetime) -> str:
    """A moment in the operator's time zone (Europe/Vienna), date and time."""
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


def day(value: date | datetime) -> str:
    """The weekday and date: "Sa., 28.11.2026" / "Sat 28.11.2026" (a moment is taken in Vienna)."""
    if isinstance(value, datetime):
        value = timezone.localtime(value)
    return formats.date_format(value, DAY_FORMATS["de" if _german() else "en"])


def day_time(moment: datetime) -> str:
    """The weekday, date and time: "Sa., 28.11.2026, 10:00" / "Sat 28.11.2026, 10:00"."""
    return f"{day(moment)}, {formats.date_format(timezone.localtime(moment), TIME_FORMAT)}"


def time_of_day(moment: datetime) -> str:
    """The time alone, in Vienna: "14:35"."""
    return formats.date_format(timezone.localtime(moment), TIME_FORMAT)


def short(moment: datetime) -> str:
    """Date and time without the weekday, for columns: "28.11.2026 10:00"."""
    return formats.date_format(timezone.localtime(moment), SHORT_FORMAT)


def _german() -> bool:
    return (translation.get_language() or "").startswith("de")
