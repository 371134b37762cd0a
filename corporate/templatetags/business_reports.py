"""The admin index's "Reports" box: what companies owe past their due dates (docs/operations/business.md)."""

from django import template

from payments import account_payments
from pricing.money import CURRENCY, from_cents
from sitekit.l10n import money

register = template.Library()


@register.simple_tag
def overdue_total() -> str:
    """The open amount of every overdue collective invoice, as money."""
    return money(from_cents(account_payments.totals()[1]), CURRENCY)
