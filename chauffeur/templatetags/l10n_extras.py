from django import template

from chauffeur import l10n

register = template.Library()


@register.filter
def money(amount, currency: str = "EUR") -> str:
    return "" if amount in (None, "") else l10n.money(amount, currency)


@register.filter
def when(moment) -> str:
    return "" if moment is None else l10n.when(moment)
