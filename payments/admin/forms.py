"""The money forms of the staff booking page: a refund in two steps, and a payment staff took themselves."""

import re
from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _

from payments.refund_requests import KEY_PATTERN
from sitekit import l10n


class EuroField(forms.Field):
    """Euros as staff type them in either language: 20, 20,00 or 20.00. A thousands separator is refused
    (is 1.000 one euro or a thousand?), and so is a third decimal place."""

    PATTERN = re.compile(r"\d{1,7}(?:[.,]\d{1,2})?")
    default_error_messages = {
        "invalid": _(
            "Enter an amount in euros such as 20,00 or 20.00: at most two decimal places and no "
            "thousands separator."
        ),
        "min_value": _("The amount must be at least {least}."),
    }

    def __init__(self, **kwargs):
        kwargs.setdefault("widget", forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}))
        super().__init__(**kwargs)

    def to_python(self, value) -> Decimal | None:
        text = re.sub(r"\s", "", str(value or ""))
        if not text:
            return None
        if not self.PATTERN.fullmatch(text):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return Decimal(text.replace(",", "."))

    def validate(self, value) -> None:
        super().validate(value)
        if value is not None and value < Decimal("0.01"):
            message = self.error_messages["min_value"].format(least=l10n.money(Decimal("0.01")))
            raise forms.ValidationError(message, code="min_value")


class RefundForm(forms.Form):
    """Step one: what to refund. Never filled in beforehand: staff type the amount they mean."""

    amount = EuroField(label=_("Amount (EUR)"))
    reason = forms.CharField(label=_("Reason"), max_length=200, required=False)
    manual = forms.BooleanField(
        label=_("Paid back by staff outside the payment provider (cash, bank transfer)"), required=False
    )


class ConfirmRefundForm(RefundForm):
    """Step two: the same values, confirmed, with the one-time key that makes a second sending harmless."""

    key = forms.RegexField(regex=KEY_PATTERN, widget=forms.HiddenInput)


class MarkPaidForm(forms.Form):
    method = forms.ChoiceField(label=_("Paid by"), choices=[("invoice", _("invoice")), ("cash", _("cash"))])
