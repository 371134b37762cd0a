"""Phone numbers (docs/operations/messages.md "Phone numbers"): what every door stores is a number a
chauffeur can call, in E.164 (`+436641234567`), parsed with `phonenumbers` (Google's libphonenumber data)
where a number without a country code is Austrian. Which of them may get a text message is a rule of its
own: a mobile number in a country of SMS_COUNTRIES, never a premium-rate, shared-cost or
international-network range (the ranges SMS pumping bills through)."""

import re

import phonenumbers
from babel import Locale
from django import forms
from django.conf import settings
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from phonenumbers import PhoneNumberType

from apikit.errors import DomainError

DEFAULT_REGION = "AT"  # a number typed without a country code is Austrian
MAX_LENGTH = 50  # characters as typed (the stored E.164 has at most 16)
# What people type into a phone field: digits, a leading +, spaces and the usual separators. Letters
# (libphonenumber would read "0800 FLOWERS" as digits), line breaks and markup are not a number.
TYPED = re.compile(r"[0-9+()./\- \u00a0]+")
NON_GEOGRAPHIC = "001"  # libphonenumber's region of +800, +808, +870, +881, +882, +883, +888, +979
# Ranges the caller pays a third party for: nobody calls or texts them on the operator's bill.
COSTLY = frozenset({PhoneNumberType.PREMIUM_RATE, PhoneNumberType.SHARED_COST})
TEXTABLE = frozenset({PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE_OR_MOBILE})

NOT_A_NUMBER = _("Enter a phone number, e.g. +43 664 1234567 (without a country code it is Austrian).")
COSTLY_NUMBER = _("Premium-rate, shared-cost and international-network numbers cannot be given.")
NO_PHONE = _("Text messages need a mobile phone number.")
CALLS_ONLY = format_lazy(
    _("Text messages go only to mobile numbers in {countries}; this number gets calls only."),
    countries=lazy(lambda: country_names(), str)(),
)


class InvalidPhone(DomainError):
    code = "invalid_phone"


class NoTextMessages(DomainError):
    code = "text_messages_unavailable"


def e164(typed: str, *, field: str = "phone") -> str:
    """The number as stored: E.164. Raises InvalidPhone (on `field`) for anything that is not a complete,
    valid number someone can be called on, or that is premium-rate, shared-cost or international-network."""
    number = parsed(typed)
    if number is None:
        raise InvalidPhone(NOT_A_NUMBER, field=field)
    if phonenumbers.region_code_for_number(number) == NON_GEOGRAPHIC or (
        phonenumbers.number_type(number) in COSTLY
    ):
        raise InvalidPhone(COSTLY_NUMBER, field=field)
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def parsed(typed: str) -> phonenumbers.PhoneNumber | None:
    """The valid number `typed` names (no extension), or None."""
    text = (typed or "").strip()
    if not text or len(text) > MAX_LENGTH or not TYPED.fullmatch(text):
        return None
    try:
        number = phonenumbers.parse(text, DEFAULT_REGION)
    except phonenumbers.NumberParseException:
        return None
    if number.extension or not phonenumbers.is_valid_number(number):
        return None
    return number


def shown(stored: str) -> str:
    """A stored number as people read it ("+43 664 1234567"); one kept from before as it was typed."""
    number = parsed(stored)
    if number is None:
        return stored
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.INTERNATIONAL)


def dial_link(stored: str) -> str:
    """`tel:+436641234567` for a phone to tap; "" for one kept from before that is no number."""
    number = parsed(stored)
    if number is None:
        return ""
    return "tel:" + phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def may_text(stored: str) -> bool:
    """Whether a text message may go to this number: a valid mobile number in a country of SMS_COUNTRIES,
    outside the costly ranges. False for a blank or unparsable one (kept from before numbers were checked)."""
    number = parsed(stored)
    return (
        number is not None
        and phonenumbers.region_code_for_number(number) in settings.SMS_COUNTRIES
        and phonenumbers.number_type(number) in TEXTABLE
    )


def ensure_textable(stored: str, *, field: str = "text_messages") -> None:
    """Raises NoTextMessages (on `field`) unless `may_text`: the traveller learns at once, not when the
    text message's job gives up."""
    if not (stored or "").strip():
        raise NoTextMessages(NO_PHONE, field=field)
    if not may_text(stored):
        raise NoTextMessages(CALLS_ONLY, field=field)


def country_names() -> str:
    """The countries of SMS_COUNTRIES by name, in the active language ("Österreich, Deutschland, …")."""
    language = "de" if (get_language() or "").startswith("de") else "en"
    return ", ".join(_country_name(region, language) for region in settings.SMS_COUNTRIES)


def _country_name(region: str, language: str) -> str:
    return Locale.parse(language).territories.get(region) or region  # a code CLDR does not know as given


class PhoneNumberField(forms.CharField):
    """The phone field of staff's forms (the phone booking, a driver): kept as E.164 as on every other
    door, a refusal worded beside the field."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", MAX_LENGTH)
        super().__init__(**kwargs)

    def clean(self, value):
        typed = super().clean(value)
        if not typed:
            return typed
        try:
            return e164(typed)
        except InvalidPhone as refusal:
            raise forms.ValidationError(refusal.words, code=refusal.code) from refusal
