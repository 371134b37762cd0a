"""Twilio's Messages API faked at the HTTP boundary (responses), at settings.TWILIO_API_BASE: the SMS tests
of every app use it."""

import pytest
import responses

ACCOUNT, TOKEN, SENDER, BASE = "AC0123456789", "twilio-token", "+43123456789", "https://twilio.test"
MESSAGES_URL = f"{BASE}/2010-04-01/Accounts/{ACCOUNT}/Messages.json"


def sent_texts(fake: responses.RequestsMock) -> list[dict[str, str]]:
    """The form of each text message Twilio was handed: To, From, Body."""
    from urllib.parse import parse_qs

    return [
        {key: values[0] for key, values in parse_qs(call.request.body).items()}
        for call in fake.calls
        if call.request.url == MESSAGES_URL
    ]


@pytest.fixture
def twilio(settings):
    """SMS_PROVIDER=twilio (sms_provider() reads the settings at each call) against a Twilio that takes
    every message; `twilio.replace(...)` makes it fail."""
    settings.SMS_PROVIDER = "twilio"
    settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN = ACCOUNT, TOKEN
    settings.TWILIO_FROM_NUMBER, settings.TWILIO_API_BASE = SENDER, BASE
    with responses.RequestsMock(assert_all_requests_are_fired=False) as fake:
        fake.add(responses.POST, MESSAGES_URL, json={"sid": "SM0001", "status": "queued"}, status=201)
        yield fake
