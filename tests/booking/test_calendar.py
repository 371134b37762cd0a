"""The ride as a calendar entry (booking/calendar.py), read back with the icalendar parser."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from icalendar import Calendar

from booking import calendar

pytestmark = pytest.mark.django_db
PICKUP = datetime(2026, 12, 5, 9, 30, tzinfo=ZoneInfo("Europe/Vienna"))


def event_of(data: bytes):
    (event,) = Calendar.from_ical(data).walk("VEVENT")
    return event


def test_the_travellers_entry_in_german(make_booking):
    booking = make_booking(pickup_at=PICKUP, duration_s=1455, flight_number="OS 123", phone="+43 1 234")
    event = event_of(calendar.ride_event(booking, locale="de", link="https://example.com/manage"))
    assert event.decoded("dtstart") == PICKUP
    assert event.decoded("dtend") - event.decoded("dtstart") == timedelta(hours=1)  # 24 min ride: an hour
    assert str(event["summary"]) == f"Chauffeurfahrt {booking.reference}: Hotel Sacher → Flughafen Wien"
    assert "Flug: OS 123" in str(event["description"]) and "+43 1 234" not in str(event["description"])
    assert str(event["uid"]).startswith(booking.reference) and str(event["status"]) == "CONFIRMED"


def test_the_chauffeurs_entry_names_the_passenger_and_lasts_the_booked_hours(make_booking):
    booking = make_booking(
        pickup_at=PICKUP, booking_type="hourly", duration_hours=3, name="Anna Berger", phone="+43 1 234"
    )
    event = event_of(calendar.ride_event(booking, locale="en", for_chauffeur=True))
    assert event.decoded("dtend") - event.decoded("dtstart") == timedelta(hours=3)
    assert str(event["summary"]).startswith(f"Job {booking.reference}: ")
    assert "Passenger: Anna Berger, +43 1 234" in str(event["description"])


def test_a_ride_without_pickup_time_has_no_entry(make_booking):
    assert calendar.ride_event(make_booking(pickup_at=None), locale="en") is None
