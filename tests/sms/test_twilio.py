"""The Twilio provider (sms/providers/twilio.py) at its HTTP boundary: the form Twilio's Messages API takes,
basic auth with the account, numbers as travellers type them in E.164, and every failure one SmsError."""

import base64

import pytest
import requests
import responses

from sms.providers import SmsError, TextMessage, sms_provider
from sms.providers.console import ConsoleProvider
from sms.providers.twilio import TwilioProvider, e164
from tests.sms.fake_twilio import ACCOUNT, MESSAGES_URL, SENDER, TOKEN, sent_texts, twilio  # noqa: F401


def test_a_message_is_posted_as_twilios_form_with_basic_auth(twilio):  # noqa: F811
    assert isinstance(sms_provider(), TwilioProvider)
    sid = sms_provider().send(TextMessage(to="0664 123 45 67", body="Ihr Chauffeur ist da."))
    assert sid == "SM0001"
    assert sent_texts(twilio) == [{"To": "+436641234567", "From": SENDER, "Body": "Ihr Chauffeur ist da."}]
    (call,) = twilio.calls
    assert call.request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    expected = base64.b64encode(f"{ACCOUNT}:{TOKEN}".encode()).decode()
    assert call.request.headers["Authorization"] == f"Basic {expected}"


def test_the_console_is_the_default(settings, capsys):
    settings.SMS_PROVIDER = "console"
    provider = sms_provider()
    assert isinstance(provider, ConsoleProvider)
    assert provider.send(TextMessage(to="+43 1 234", body="Hello")).startswith("console-")
    assert "SMS to +43 1 234:\nHello" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (
            {"status": 400, "json": {"code": 21211, "message": "The 'To' number is not valid."}},
            "Twilio refused the message (400): The 'To' number is not valid.",
        ),
        ({"status": 401, "json": {"message": "Authenticate"}}, "(401): Authenticate"),
        ({"status": 500, "body": "<html>Internal Server Error</html>"}, "(500): <html>Internal Server Error"),
        ({"body": requests.ConnectionError("refused")}, "Twilio unreachable: ConnectionError"),
        ({"body": requests.ReadTimeout("slow")}, "Twilio unreachable: ReadTimeout"),
    ],
)
def test_every_failure_is_one_sms_error_saying_why(twilio, answer, words):  # noqa: F811
    twilio.replace(responses.POST, MESSAGES_URL, **answer)
    with pytest.raises(SmsError) as failed:
        sms_provider().send(TextMessage(to="+43 664 1234567", body="x"))
    assert words in str(failed.value)


@pytest.mark.parametrize(
    ("typed", "number"),
    [
        ("0664 123 45 67", "+436641234567"),
        ("+43 664/1234567", "+436641234567"),
        ("0043 1 234 5678", "+4312345678"),
        ("(+49) 30-1234567", "+49301234567"),
        ("+44 7911 123456", "+447911123456"),
    ],
)
def test_numbers_as_typed_become_e164(typed, number):
    assert e164(typed) == number


@pytest.mark.parametrize("typed", ["", "call me", "+43 12", "+0664123456", "+1234567890123456"])
def test_what_is_no_number_is_refused_before_twilio_is_called(twilio, typed):  # noqa: F811
    with pytest.raises(SmsError, match="not a phone number"):
        sms_provider().send(TextMessage(to=typed, body="x"))
    assert len(twilio.calls) == 0
