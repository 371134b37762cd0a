"""The template side of sitekit/l10n.py: `{{ price|money }}`, `{{ pickup|day_time }}` and the rest."""

from django import template

from sitekit import l10n, phones

register = template.Library()


@register.filter
def phone(number) -> str:
    """`{{ booking.phone|phone }}`: the stored E.164 as people read it, "+43 664 1234567"."""
    return phones.shown(number or "")


@register.filter
def dial_link(number) -> str:
    """`{{ booking.phone|dial_link }}`: a `tel:` link to tap; "" for an old number that is none."""
    return phones.dial_link(number or "")


@register.filter
def money(amount, currency: str = "EUR") -> str:
    return "" if amount in (None, "") else l10n.money(amount, currency)


@register.filter
def when(moment) -> str:
    return "" if moment is None else l10n.when(moment)


@register.filter
def day(value) -> str:
    return "" if value is None else l10n.day(value)


@register.filter
def day_time(moment) -> str:
    return "" if moment is None else l10n.day_time(moment)


@register.filter
def short(moment) -> str:
    return "" if moment is None else l10n.short(moment)
