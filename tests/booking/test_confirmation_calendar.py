"""The traveller's confirmation carries the ride as a calendar entry: the .ics of
booking/calendar.py in the booking's language, pointing to the manage page; the operator's copy and the
other mails carry none, and a ride without a pickup time is confirmed without one."""

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from icalendar import Calendar

from booking import links, notifications
from booking.models import BookingStatus

pytestmark = pytest.mark.django_db
PICKUP = datetime(2026, 12, 5, 9, 30, tzinfo=ZoneInfo("Europe/Vienna"))


@pytest.fixture
def paid(settings, make_booking):
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"

    def make(**fields):
        values = {
            "status": BookingStatus.PAID,
            "email": "anna@example.com",
            "pickup_at": PICKUP,
            "duration_s": 1455,
        }
        return make_booking(**{**values, **fields})

    return make


def sent_to(address: str):
    (message,) = [message for message in mail.outbox if message.to == [address]]
    return message


def entry_of(message):
    (attachment,) = message.attachments
    assert attachment.mimetype == "text/calendar"
    (event,) = Calendar.from_ical(attachment.content).walk("VEVENT")
    return attachment.filename, event


@pytest.mark.parametrize(("locale", "summary"), [("de", "Chauffeurfahrt"), ("en", "Chauffeur ride")])
def test_the_payment_confirmation_carries_the_ride_in_the_travellers_language(paid, locale, summary):
    booking = paid(locale=locale)
    assert notifications.send_confirmation(booking.pk) is True
    filename, event = entry_of(sent_to("anna@example.com"))
    assert filename == f"{booking.reference}.ics"
    assert str(event["summary"]) == f"{summary} {booking.reference}: Hotel Sacher → Flughafen Wien"
    assert event.decoded("dtstart") == PICKUP
    assert str(event["url"]) == links.manage_url(booking.reference)
    assert links.manage_url(booking.reference) in str(event["description"])
    assert sent_to("dispatch@chauffeur.test").attachments == []  # the operator's copy: no calendar


def test_the_confirmed_ride_mail_carries_it_too(paid):
    booking = paid(status=BookingStatus.CONFIRMED, locale="de")
    notifications.deliver_confirmation(booking.pk)
    message = sent_to("anna@example.com")
    assert "ist bestätigt" in message.subject
    assert entry_of(message)[0] == f"{booking.reference}.ics"


def test_a_ride_without_a_pickup_time_is_confirmed_without_an_entry(paid):
    booking = paid(pickup_at=None)
    assert notifications.send_confirmation(booking.pk) is True
    assert sent_to("anna@example.com").attachments == []


def test_the_cancellation_carries_no_entry(paid):
    booking = paid(received_cents=7400, paid_at=PICKUP)
    notifications.send_cancellation(booking.pk)
    assert sent_to("anna@example.com").attachments == []
