"""The active SMS provider, chosen by SMS_PROVIDER: `console` (the default: printed, as e-mail is without a
mail server) or `twilio`."""

from django.conf import settings

from sms.providers.base import SmsError, SmsProvider, TextMessage

__all__ = ["SmsError", "SmsProvider", "TextMessage", "sms_provider"]


def sms_provider() -> SmsProvider:
    if settings.SMS_PROVIDER == "twilio":
        from sms.providers.twilio import TwilioProvider

        return TwilioProvider(
            account_sid=settings.TWILIO_ACCOUNT_SID,
            auth_token=settings.TWILIO_AUTH_TOKEN,
            sender=settings.TWILIO_FROM_NUMBER,
            api_base=settings.TWILIO_API_BASE,
        )
    from sms.providers.console import ConsoleProvider

    return ConsoleProvider()
