"""Phone numbers (sitekit/phones.py): what is a number a chauffeur can call (stored as E.164, Austrian without a
country code) and which of them may get a text message (SMS_COUNTRIES, mobile ranges only). The SMS job
never hands a refused number to the provider."""

import pytest
from django.utils import translation

from booking import text_messages
from sitekit import phones
from tests.booking.conftest import make_booking  # noqa: F401 (a fixture)
from tests.sms.fake_twilio import sent_texts, twilio  # noqa: F401

# The red team's numbers: letters, a line break, markup, a formula, 50 zeros, a premium-rate and an
# international-network range.
GARBAGE = ["abc", "0664 123\n4567", "<script>alert(1)</script>", "=1+2", "0" * 50]
COSTLY = ["+43 930 123456", "+43 900 123456", "+43 810 123456", "+882 3421234", "+883 5100 1234"]


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("0664 123 45 67", "+436641234567"),
        ("+43 664/1234567", "+436641234567"),
        ("0043 1 234 5678", "+4312345678"),
        ("(+49) 30-1234567", "+49301234567"),
        ("+44 7911 123456", "+447911123456"),
        (" 664 1234567 ", "+436641234567"),
    ],
)
def test_numbers_as_typed_are_stored_as_e164(typed, stored):
    assert phones.e164(typed) == stored


@pytest.mark.parametrize("typed", [*GARBAGE, "", "+43 1 234", "0664 1234567 ext 5", "0800 FLOWERS", "+1+2"])
def test_what_is_no_number_is_refused(typed):
    with pytest.raises(phones.InvalidPhone) as refused:
        phones.e164(typed)
    assert refused.value.code == "invalid_phone" and refused.value.field == "phone"


@pytest.mark.parametrize("typed", COSTLY)
def test_premium_shared_cost_and_international_network_numbers_are_refused(typed):
    with pytest.raises(phones.InvalidPhone, match=r"Premium-rate|Enter a phone number"):
        phones.e164(typed)


@pytest.mark.parametrize(
    ("stored", "textable"),
    [
        ("+436641234567", True),  # Austrian mobile
        ("+4915123456789", True),  # German mobile
        ("+4312345678", False),  # a Vienna landline
        ("+12025550143", False),  # not a country of SMS_COUNTRIES
        ("+447400123456", False),  # a UK mobile: not listed by default
        ("+43930123456", False),  # premium rate (kept from before numbers were checked)
        ("+8823421234", False),  # international network
        ("abc", False),  # garbage kept from before
        ("", False),
    ],
)
def test_texts_go_only_to_mobiles_of_the_allowed_countries(stored, textable):
    assert phones.may_text(stored) is textable


def test_staff_choose_the_countries(settings):
    settings.SMS_COUNTRIES = ["AT", "GB", "XX"]
    with translation.override("en"):  # whatever language a test before left active
        assert phones.country_names() == "Austria, United Kingdom, XX"  # an unknown code is named as given
    assert phones.may_text("+447400123456") and not phones.may_text("+4915123456789")


def test_the_refusal_names_the_countries_in_the_readers_language():
    with pytest.raises(phones.NoTextMessages) as refused:
        phones.ensure_textable("+4312345678")
    with translation.override("de"):
        assert "Österreich, Deutschland, Schweiz" in refused.value.in_words()
    assert "Austria, Germany, Switzerland" in refused.value.detail


@pytest.mark.django_db
@pytest.mark.parametrize("phone", ["+43930123456", "+8823421234", "+4312345678", "=1+2"])
def test_the_sms_job_never_hands_a_refused_number_to_the_provider(twilio, make_booking, phone):  # noqa: F811
    booking = make_booking(text_messages=True, phone=phone)  # stored before numbers were checked
    assert text_messages.send_text(booking, "Your chauffeur has arrived.", topic="arrived") is False
    assert sent_texts(twilio) == []


@pytest.mark.django_db
def test_a_mobile_number_gets_its_text(twilio, make_booking):  # noqa: F811
    booking = make_booking(text_messages=True, phone="+436641234567")
    assert text_messages.send_text(booking, "Your chauffeur has arrived.", topic="arrived") is True
    assert [text["To"] for text in sent_texts(twilio)] == ["+436641234567"]


@pytest.mark.parametrize(
    ("stored", "read"),
    [
        ("+436641234567", "+43 664 1234567"),
        ("+4312345678", "+43 1 2345678"),
        ("call me", "call me"),
        ("", ""),
    ],
)
def test_pages_show_a_number_as_people_read_it(stored, read):
    assert phones.shown(stored) == read
