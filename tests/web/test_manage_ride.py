"""The ride's day on the traveller's manage page: the panel follows the chauffeur's moves
(dispatch/ride_day.py) in the page's language, with the chauffeur, their phone and the car once confirmed;
the panel alone for the page's script; the ride's calendar entry; and the choice of text messages (CSRF,
only with a phone number, a clear refusal otherwise)."""

import re
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from icalendar import Calendar

from booking import links
from booking.models import Booking, BookingEvent, BookingStatus, RideState
from dispatch import ride_day
from tests.dispatch.conftest import assign, fleet, ride  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db
WHOLE_DAY = [
    RideState.ACCEPTED,
    RideState.ON_THE_WAY,
    RideState.ARRIVED,
    RideState.ON_BOARD,
    RideState.COMPLETED,
]


@pytest.fixture
def browser():
    return Client(enforce_csrf_checks=True)


@pytest.fixture
def assigned(fleet, ride):  # noqa: F811
    booking = ride(pickup=timezone.localtime().replace(hour=22, minute=0, second=0, microsecond=0))
    assign(booking, fleet["karl"], fleet["sedan"])
    booking.refresh_from_db()
    return booking


def manage_path(booking: Booking, lang: str = "") -> str:
    path = links.manage_url(booking.reference).removeprefix("https://chauffeur.test")
    return f"{path}&lang={lang}" if lang else path


def page(browser, booking, lang: str = "en") -> str:
    response = browser.get(manage_path(booking, lang))
    assert response.status_code == 200
    return response.content.decode()


def panel_path(html: str) -> str:
    return re.search(r'data-refresh="([^"]+)"', html)[1].replace("&amp;", "&")


def steps(html: str) -> list[tuple[str, str, bool]]:
    """(state, time shown, current) of each timeline step."""
    found = re.findall(
        r'<li class="cb-ride-step[^"]*" data-state="(\w+)"( aria-current="step")?>\s*'
        r'<span class="cb-ride-words">[^<]*</span>\s*<span class="cb-ride-time[^"]*">([^<]*)</span>',
        html,
    )
    return [(state, shown, bool(current)) for state, current, shown in found]


def move(booking, state, driver, at):
    with time_machine.travel(at, tick=False):
        ride_day.advance(booking.pk, state, driver=driver, actor=f"{driver.name} (chauffeur)")


def test_the_confirmed_ride_shows_its_chauffeur_car_and_a_timeline_to_come(browser, assigned):
    html = page(browser, assigned)
    assert "Your chauffeur</" not in html  # the old line is part of the panel now
    assert re.search(
        r'id="driver">Your chauffeur: <strong>Karl Huber</strong>, <a href="tel:\+436601112223">', html
    )
    assert 'id="car">Your car: E-Class, number plate <strong>W-1000A</strong>' in html
    assert "Your chauffeur has not accepted the ride yet" in html
    assert steps(html) == [(state.value, "to come", False) for state in WHOLE_DAY]
    assert 'data-refresh-seconds="30"' in html and "/static/booking/ride.js" in html
    assert panel_path(html).startswith("/booking/manage/ride?booking=")


def test_the_page_and_its_panel_follow_every_move_in_the_travellers_language(browser, fleet, assigned):  # noqa: F811
    shown, path = {}, panel_path(page(browser, assigned, "de"))
    for number, state in enumerate(WHOLE_DAY):
        at = timezone.localtime(assigned.pickup_at) - timedelta(minutes=40 - 10 * number)
        move(assigned, state, fleet["karl"], at)
        shown[state.value] = at.strftime("%H:%M")
        german = page(browser, assigned, "de")
        fragment = browser.get(path)
        assert fragment.status_code == 200 and fragment["Cache-Control"] == "private, no-store"
        expected = [(step.value, shown.get(step.value, "folgt"), step == state) for step in WHOLE_DAY]
        assert steps(german) == steps(fragment.content.decode()) == expected
    assert "Die Fahrt ist abgeschlossen" in german and "Chauffeur am Abholort" in german
    assert "data-refresh=" not in german and "ride.js" not in german  # over: the page stops asking
    assert "data-ride-final" in fragment.content.decode()


def test_a_move_made_the_day_before_shows_its_date(browser, fleet, assigned):  # noqa: F811
    day_before = timezone.localtime(assigned.pickup_at) - timedelta(days=1)
    move(assigned, RideState.ACCEPTED, fleet["karl"], day_before)
    assert steps(page(browser, assigned))[0] == ("accepted", day_before.strftime("%d.%m.%Y %H:%M"), True)


def test_a_no_show_ends_the_timeline_after_the_arrival(browser, fleet, assigned):  # noqa: F811
    pickup = timezone.localtime(assigned.pickup_at)
    for state in WHOLE_DAY[:3]:
        move(assigned, state, fleet["karl"], pickup - timedelta(minutes=5))
    move(assigned, RideState.NO_SHOW, fleet["karl"], pickup + timedelta(hours=1))
    html = page(browser, assigned)
    assert [step[0] for step in steps(html)] == ["accepted", "on_the_way", "arrived", "no_show"]
    assert steps(html)[-1] == ("no_show", (pickup + timedelta(hours=1)).strftime("%H:%M"), True)
    assert "could not find you" in html and "data-refresh=" not in html


def test_a_paid_ride_waits_for_its_chauffeur_and_a_cancelled_one_has_no_panel(browser, ride):  # noqa: F811
    paid = ride()
    html = page(browser, paid)
    assert "A chauffeur will be assigned before the ride" in html and 'id="driver"' not in html
    assert steps(html) == [] and 'id="car"' not in html
    path = panel_path(html)  # a paid ride is still waiting: asked again
    Booking.objects.filter(pk=paid.pk).update(status=BookingStatus.CANCELLED)
    html = page(browser, paid)
    assert 'id="ride"' not in html and 'id="calendar"' not in html and "ride.js" not in html
    fragment = browser.get(path).content.decode()
    assert "data-ride-final" in fragment and "ride-now" not in fragment  # the page's script stops


def test_a_forged_link_opens_neither_panel_nor_calendar(browser, assigned):
    for path in ("/booking/manage/ride", "/booking/manage/ride.ics"):
        assert browser.get(path, {"booking": assigned.reference}).status_code == 404
        assert browser.get(path, {"booking": f"{assigned.reference}:forged"}).status_code == 404


def test_the_calendar_entry_in_the_pages_language_links_back(browser, assigned):
    html = page(browser, assigned, "de")
    href = re.search(r'id="calendar" href="([^"]+)" download', html)[1].replace("&amp;", "&")
    response = browser.get(href)
    assert response.status_code == 200 and response["Content-Type"] == "text/calendar; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="{assigned.reference}.ics"'
    (event,) = Calendar.from_ical(response.content).walk("VEVENT")
    assert str(event["summary"]).startswith(f"Chauffeurfahrt {assigned.reference}")
    assert str(event["url"]) == links.manage_url(assigned.reference)
    assert event.decoded("dtstart") == assigned.pickup_at


def test_a_ride_without_pickup_time_has_no_calendar_entry(browser, ride):  # noqa: F811
    booking = ride(pickup_at=None)
    html = page(browser, booking)
    assert 'id="calendar"' not in html
    path = manage_path(booking).replace("/booking/manage?", "/booking/manage/ride.ics?")
    assert browser.get(path).status_code == 404


def csrf(html: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)[1]


def test_the_traveller_turns_text_messages_on_and_off(browser, assigned):
    Booking.objects.filter(pk=assigned.pk).update(phone="+436641234567")  # a mobile: texts may go to it
    path = manage_path(assigned)
    html = page(browser, assigned)
    assert re.search(r'<input id="sms" name="text_messages" type="checkbox">', html)
    assert browser.post(path, {"action": "text_messages", "text_messages": "on"}).status_code == 403
    assert Booking.objects.get().text_messages is False  # no CSRF token: nothing happened
    on = browser.post(
        path, {"action": "text_messages", "text_messages": "on", "csrfmiddlewaretoken": csrf(html)}
    )
    assert on.status_code == 200 and "by SMS as well" in on.content.decode()
    assert 'type="checkbox" checked' in on.content.decode() and Booking.objects.get().text_messages is True
    off = browser.post(path, {"action": "text_messages", "csrfmiddlewaretoken": csrf(html)})
    assert "by e-mail only" in off.content.decode() and Booking.objects.get().text_messages is False
    changes = BookingEvent.objects.filter(booking=assigned, kind="change")
    assert [(event.text, event.actor) for event in changes] == [
        ("Text messages: on", "customer (manage page)"),
        ("Text messages: off", "customer (manage page)"),
    ]


def test_without_a_phone_number_text_messages_are_refused_and_nothing_changes(browser, ride):  # noqa: F811
    booking = ride(phone="", locale="de", booking_data={"locale": "de"})
    html = page(browser, booking, "de")
    assert 'id="sms"' not in html and "Kurznachrichten brauchen eine Telefonnummer" in html
    refused = browser.post(
        manage_path(booking, "de"),
        {"action": "text_messages", "text_messages": "on", "csrfmiddlewaretoken": csrf(html)},
    )
    assert refused.status_code == 400
    assert re.search(r'role="alert">Kurznachrichten brauchen eine Telefonnummer', refused.content.decode())
    assert Booking.objects.get().text_messages is False and not BookingEvent.objects.exists()


@pytest.mark.parametrize("phone", ["+4312345678", "+12025550143", "+43930123456"])
def test_a_number_that_may_get_no_texts_is_refused_and_nothing_changes(browser, ride, phone):  # noqa: F811
    # a Vienna landline, a US number (not in SMS_COUNTRIES), a premium number kept from before the check
    booking = ride(phone=phone, locale="de", booking_data={"locale": "de"})
    html = page(browser, booking, "de")
    refused = browser.post(
        manage_path(booking, "de"),
        {"action": "text_messages", "text_messages": "on", "csrfmiddlewaretoken": csrf(html)},
    )
    assert refused.status_code == 400
    assert re.search(
        r'role="alert">Kurznachrichten gehen nur an Handynummern in Österreich, Deutschland',
        refused.content.decode(),
    )
    assert Booking.objects.get().text_messages is False and not BookingEvent.objects.exists()


def test_text_messages_are_not_offered_once_the_ride_is_over(browser, fleet, assigned):  # noqa: F811
    token = csrf(page(browser, assigned))
    with time_machine.travel(assigned.pickup_at, tick=False):  # "completed" not before the pickup
        for state in WHOLE_DAY:
            ride_day.advance(assigned.pk, state, driver=fleet["karl"], actor="Karl Huber (chauffeur)")
    html = page(browser, assigned)
    assert 'id="messages"' not in html
    form = {"action": "text_messages", "text_messages": "on", "csrfmiddlewaretoken": token}
    assert browser.post(manage_path(assigned), form).status_code == 200
    assert Booking.objects.get().text_messages is False
