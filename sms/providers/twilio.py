"""Twilio's Messages REST API (POST /2010-04-01/Accounts/{AccountSid}/Messages.json, form-encoded To, From
and Body, HTTP basic auth with the account SID and auth token): https://www.twilio.com/docs/messaging/api/message-resource"""

import phonenumbers
import requests

from sms.providers.base import SmsError, TextMessage

TIMEOUT = (3.05, 10)


def e164(number: str) -> str:
    """The number in E.164, as Twilio wants it: every door stores it so (sitekit/phones.py); one kept
    from before is read as an Austrian traveller typed it ("0664 123 45 67", "+43 664/1234567", "0043…")."""
    try:
        parsed = phonenumbers.parse(number, "AT")
    except phonenumbers.NumberParseException:
        parsed = None
    if parsed is None or not phonenumbers.is_valid_number(parsed):
        raise SmsError(f"not a phone number: {number!r}")
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)


class TwilioProvider:
    def __init__(self, *, account_sid: str, auth_token: str, sender: str, api_base: str):
        self.account_sid, self.auth_token, self.sender, self.api_base = (
            account_sid,
            auth_token,
            sender,
            api_base,
        )

    def send(self, message: TextMessage) -> str:
        url = f"{self.api_base}/2010-04-01/Accounts/{self.account_sid}/Messages.json"
        try:
            answer = requests.post(
                url,
                data={"To": e164(message.to), "From": self.sender, "Body": message.body},
                auth=(self.account_sid, self.auth_token),
                timeout=TIMEOUT,
            )
        except requests.RequestException as error:
            raise SmsError(f"Twilio unreachable: {error.__class__.__name__}") from error
        if answer.status_code != 201:
            try:
                reason = answer.json().get("message", "")
            except ValueError:
                reason = answer.text[:200]
            raise SmsError(f"Twilio refused the message ({answer.status_code}): {reason}")
        return answer.json().get("sid", "")
