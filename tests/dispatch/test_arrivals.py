"""Pickups follow their flight: AeroDataBox faked at the HTTP boundary, the clock frozen, the schedule's job
run as the worker runs it. A late flight moves the pickup once (history, one message each, one event); an
early one only within the set-off window; cancelled and diverted flights alert staff once; an outage and a
spent budget change nothing."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import responses
import time_machine
from django.conf import settings
from django.core import mail
from responses import matchers

from booking import links
from booking.models import Booking, BookingEvent, FlightStatus, FlightWatch
from booking.ride import progress
from dispatch import job_links, ride_day, tasks, waiting
from dispatch.models import RideDayPolicy
from flights import budget
from flights.models import FlightBudget
from privacy import records
from tests.dispatch.conftest import assign
from tests.queued import run_pending_jobs
from tests.sms.fake_twilio import ACCOUNT, BASE, MESSAGES_URL, SENDER, TOKEN, sent_texts
from webhooks.models import Endpoint, Event

pytestmark = pytest.mark.django_db
VIENNA = ZoneInfo("Europe/Vienna")
URL = "https://aerodatabox.test"
LANDING = datetime(2027, 6, 7, 14, 0, tzinfo=VIENNA)  # LH1234 from Frankfurt, as scheduled
BOOKED = LANDING + timedelta(minutes=20)
AIRPORT = "Flughafen Wien-Schwechat (VIE), Schwechat"


@pytest.fixture(autouse=True)
def provider(settings):
    settings.AERODATABOX_API_KEY, settings.AERODATABOX_URL = "test-key", URL
    settings.OPERATOR_EMAIL = "office@chauffeur.test"
    RideDayPolicy.objects.create(pk=1, flight_buffer_schengen_minutes=15, set_off_minutes=30)


@pytest.fixture
def clock():
    with time_machine.travel(LANDING - timedelta(hours=3), tick=False) as traveller:
        yield traveller


@pytest.fixture
def aero():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


@pytest.fixture
def flight_ride(ride, fleet):
    booking = ride(
        BOOKED,
        origin=AIRPORT,
        destination="Hotel Sacher",
        flight_number="LH 1234",
        luggage=0,
        status="confirmed",
    )
    assign(booking, fleet["karl"], fleet["sedan"])
    run_pending_jobs()  # the job's and the chauffeur's mails
    mail.outbox.clear()
    return booking


def utc(moment: datetime) -> dict:
    return {"utc": moment.astimezone(ZoneInfo("UTC")).strftime("%Y-%m-%d %H:%MZ")}


def answer(
    aero,
    status="Expected",
    *,
    revised=None,
    runway=None,
    country="DE",
    arrival="VIE",
    http=200,
    number="LH1234",
    scheduled=LANDING,
):
    """What AeroDataBox answers for the flight on its scheduled landing's day (replacing any earlier
    answer)."""
    url = f"{URL}/flights/number/{number}/{scheduled.date().isoformat()}"
    aero.remove(responses.GET, url)
    if http != 200:
        aero.add(responses.GET, url, status=http)
        return
    flight = {
        "number": "LH 1234",
        "status": status,
        "departure": {"airport": {"iata": "FRA", "countryCode": country}},
        "arrival": {
            "airport": {"iata": arrival, "countryCode": "AT"},
            "scheduledTime": utc(scheduled),
            **({"revisedTime": utc(revised)} if revised else {}),
            **({"runwayTime": utc(runway)} if runway else {}),
        },
    }
    aero.add(
        responses.GET,
        url,
        json=[flight],
        match=[
            matchers.header_matcher({"X-RapidAPI-Key": "test-key"}),
            matchers.query_param_matcher(
                {"dateLocalRole": "Arrival", "withAircraftImage": "false", "withLocation": "false"}
            ),
        ],
    )


def polled(clock, moment: datetime | None = None) -> dict:
    if moment is not None:
        clock.move_to(moment)
    result = tasks.follow_flights.call()
    run_pending_jobs()
    return result


def moves(booking) -> list[str]:
    return list(booking.history.filter(actor="flight data").values_list("text", flat=True))


def test_a_late_flight_moves_the_pickup_once_told_to_each_and_announced(aero, clock, flight_ride):
    Endpoint.objects.create(url="https://dispatch.example/hooks")  # staff's: hears of every booking
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=70))
    assert polled(clock) == {"asked": 1, "moved": 1, "budgetSpent": False}
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == LANDING + timedelta(minutes=70 + 15)  # landing + Schengen, no luggage
    assert moves(flight_ride) == [
        "Pickup moved from 07.06.2027 14:20 to 07.06.2027 15:25: flight LH 1234 lands at 07.06.2027 15:10."
    ]
    (traveller,) = [message for message in mail.outbox if message.to == ["anna@example.com"]]
    assert (
        "now expected to land at" in traveller.body
        and "15:25" in traveller.body
        and "14:20" in traveller.body
    )
    (chauffeur,) = [message for message in mail.outbox if message.to == ["karl@chauffeur.test"]]
    assert "15:25" in chauffeur.body
    (event,) = Event.objects.filter(type="booking.pickup_moved")
    assert event.payload["data"]["previousPickupDatetime"] == BOOKED.isoformat()
    assert event.payload["data"]["flight"] == {
        "number": "LH 1234",
        "status": "departed",
        "landing": (LANDING + timedelta(minutes=70)).isoformat(),
    }
    watch = FlightWatch.objects.get(booking=flight_ride)
    assert watch.booked_pickup_at == BOOKED and watch.from_schengen is True

    # the same estimate, then a wobble of two minutes: no move, no message, no event
    sent = len(mail.outbox)
    polled(clock, LANDING - timedelta(minutes=50))
    answer(aero, "Approaching", revised=LANDING + timedelta(minutes=72))
    polled(clock, LANDING + timedelta(minutes=20))
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == LANDING + timedelta(minutes=85)
    assert len(mail.outbox) == sent and Event.objects.filter(type="booking.pickup_moved").count() == 1
    assert len(moves(flight_ride)) == 1


def test_polls_are_spaced_by_the_time_to_landing_and_stop_once_landed(aero, clock, flight_ride):
    answer(aero, "Expected")
    polled(clock, LANDING - timedelta(hours=5))  # five hours out: next in an hour
    assert len(aero.calls) == 1
    polled(clock, LANDING - timedelta(hours=4, minutes=30))
    assert len(aero.calls) == 1  # not yet due
    polled(clock, LANDING - timedelta(hours=4))
    assert len(aero.calls) == 2
    polled(clock, LANDING - timedelta(hours=3))  # within three hours: every twenty minutes
    polled(clock, LANDING - timedelta(hours=2, minutes=50))
    assert len(aero.calls) == 3
    polled(clock, LANDING - timedelta(hours=2, minutes=40))
    assert len(aero.calls) == 4
    answer(aero, "Arrived", revised=LANDING - timedelta(minutes=2))
    polled(clock, LANDING - timedelta(hours=2, minutes=20))
    assert len(aero.calls) == 5
    watch = FlightWatch.objects.get(booking=flight_ride)
    assert watch.status == FlightStatus.LANDED and watch.next_check_at is None
    polled(clock, LANDING + timedelta(hours=1))
    assert len(aero.calls) == 5  # landed: nothing more to ask


def test_an_early_landing_moves_the_pickup_earlier_only_within_the_set_off_window(aero, clock, flight_ride):
    answer(aero, "EnRoute", revised=LANDING - timedelta(minutes=40))
    polled(clock)
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == LANDING - timedelta(minutes=25)  # 13:20 + 15 minutes

    # landing still earlier, but a chauffeur cannot set off for it any more: as early as they can
    answer(aero, "Approaching", revised=LANDING - timedelta(minutes=55))
    polled(clock, LANDING - timedelta(minutes=65))
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == LANDING - timedelta(minutes=35)  # now + 30 minutes' set-off
    assert len(moves(flight_ride)) == 2


def test_a_cancelled_flight_alerts_staff_once_and_the_pickup_stays(aero, clock, flight_ride):
    answer(aero, "Canceled")
    polled(clock)
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == BOOKED
    (alert,) = [message for message in mail.outbox if message.to == ["office@chauffeur.test"]]
    assert "Flight LH 1234 is cancelled" in alert.body and flight_ride.reference in alert.subject
    polled(clock, LANDING - timedelta(hours=2))  # final: not asked again
    assert len(aero.calls) == 1
    assert len([message for message in mail.outbox if message.to == ["office@chauffeur.test"]]) == 1
    assert moves(flight_ride) == ["Flight LH 1234 is cancelled: the pickup stays until staff decide."]


def test_a_diverted_flight_alerts_staff_with_the_airport(aero, clock, flight_ride):
    answer(aero, "Diverted", arrival="BTS")
    polled(clock)
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == BOOKED
    assert moves(flight_ride) == ["Flight LH 1234 is diverted to BTS: the pickup stays until staff decide."]
    assert FlightWatch.objects.get(booking=flight_ride).status == FlightStatus.DIVERTED
    polled(clock, LANDING - timedelta(hours=1))  # diverted is final: not asked, not alerted again
    (alert,) = [message for message in mail.outbox if message.to == ["office@chauffeur.test"]]
    assert "Flight LH 1234 is diverted to BTS" in alert.body and len(aero.calls) == 1


def test_an_outage_changes_nothing_is_shown_and_asked_again_later(
    aero, clock, flight_ride, admin_client, client, agent
):
    answer(aero, http=503)
    assert polled(clock)["moved"] == 0
    watch = FlightWatch.objects.get(booking=flight_ride)
    assert watch.unavailable_since is not None and watch.checked_at is None
    assert watch.next_check_at == LANDING - timedelta(hours=2)  # at its own pace: hourly, 3 h 20 before
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == BOOKED and mail.outbox == []
    html = admin_client.get(BOARD, {"range": "today"}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Flight LH 1234: no flight data since 11:00" in html
    read = client.get(f"/api/v1/bookings/{flight_ride.reference}", {"email": "anna@example.com"}, **agent)
    assert read.json()["flight"]["unavailableSince"] == "2027-06-07T11:00:00+02:00"
    answer(aero, "Expected")
    polled(clock, LANDING - timedelta(hours=2))
    watch.refresh_from_db()
    assert watch.unavailable_since is None and watch.checked_at is not None


def test_the_daily_budget_is_never_exceeded(aero, clock, ride):
    FlightBudget.objects.create(daily_calls=2)
    for _ in range(3):
        ride(BOOKED, origin=AIRPORT, flight_number="LH1234", luggage=0)
    answer(aero, "Expected")
    assert polled(clock) == {"asked": 2, "moved": 0, "budgetSpent": True}
    polled(clock, LANDING - timedelta(hours=1))  # all due again: still nothing beyond the budget
    assert len(aero.calls) == 2


def test_without_a_provider_nothing_is_asked_and_the_ride_says_so(settings, aero, clock, flight_ride, client):
    settings.AERODATABOX_API_KEY = ""
    assert polled(clock) == {"asked": 0, "moved": 0, "budgetSpent": False}
    assert len(aero.calls) == 0 and not FlightWatch.objects.exists()


def test_a_pickup_booked_long_after_the_landing_stays(aero, clock, ride):
    later = ride(LANDING + timedelta(hours=4), origin=AIRPORT, flight_number="LH1234", luggage=0)
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=90))
    polled(clock)
    later.refresh_from_db()
    assert later.pickup_at == LANDING + timedelta(hours=4)


def test_luggage_and_a_flight_from_outside_schengen_take_longer(aero, clock, ride):
    booking = ride(BOOKED, origin=AIRPORT, flight_number="LH1234", luggage=2)
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=30), country="GB")
    polled(clock)
    booking.refresh_from_db()
    assert booking.pickup_at == LANDING + timedelta(minutes=30 + 30 + 15)


def test_waiting_counts_from_the_landing(aero, clock, flight_ride):
    answer(aero, "Arrived", revised=LANDING + timedelta(minutes=10))
    polled(clock)
    flight_ride.refresh_from_db()
    assert waiting.landing(flight_ride) == LANDING + timedelta(minutes=10)
    assert waiting.waiting_starts(flight_ride, LANDING) == LANDING + timedelta(minutes=10)
    assert waiting.waiting_starts(flight_ride, LANDING + timedelta(minutes=40)) == LANDING + timedelta(
        minutes=40
    )


def test_a_flight_number_staff_corrected_is_followed_afresh(aero, clock, flight_ride):
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=60))
    polled(clock)
    flight_ride.refresh_from_db()
    flight_ride.flight_number = "OS 112"
    flight_ride.save(update_fields=["flight_number"])
    answer(aero, "Expected", number="OS112")
    polled(clock, LANDING - timedelta(hours=2, minutes=55))
    watch = FlightWatch.objects.get(booking=flight_ride)
    assert watch.flight_number == "OS 112" and watch.booked_pickup_at == LANDING + timedelta(minutes=75)
    assert BookingEvent.objects.filter(booking=flight_ride, actor="flight data").count() == 1


BOARD = "/admin/booking/booking/dispatch/"


def test_the_board_shows_the_flight_and_alerts_of_a_cancelled_one(aero, clock, flight_ride, admin_client):
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=70))
    polled(clock)
    html = admin_client.get(BOARD, {"range": "today"}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "✈ Flight LH 1234 lands 15:10 · pickup moved +65 min" in html
    answer(aero, "Canceled")
    polled(clock, LANDING - timedelta(minutes=50))
    html = admin_client.get(BOARD, {"range": "today"}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<strong class="late-note flight-note">Flight LH 1234 cancelled</strong>' in html


def test_the_booking_read_tells_the_flight_as_last_heard(aero, clock, flight_ride, client, agent):
    path = f"/api/v1/bookings/{flight_ride.reference}"
    before = client.get(path, {"email": "anna@example.com"}, **agent).json()["flight"]
    assert before["status"] == "scheduled" and before["estimatedLanding"] is None
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=70))
    polled(clock)
    read = client.get(path, {"email": "anna@example.com"}, **agent).json()
    assert read["pickupDatetime"] == "2027-06-07T15:25:00+02:00"
    assert read["flight"] == {
        "number": "LH 1234",
        "status": "departed",
        "scheduledLanding": "2027-06-07T14:00:00+02:00",
        "estimatedLanding": "2027-06-07T15:10:00+02:00",
        "actualLanding": None,
        "pickupAsBooked": "2027-06-07T14:20:00+02:00",
        "checkedAt": "2027-06-07T11:00:00+02:00",
        "unavailableSince": None,
    }


def test_the_booking_read_says_when_no_flight_is_followed(settings, flight_ride, client, agent):
    settings.AERODATABOX_API_KEY = ""
    read = client.get(f"/api/v1/bookings/{flight_ride.reference}", {"email": "anna@example.com"}, **agent)
    assert read.json()["flight"]["status"] == "not_tracked"


def test_removing_the_travellers_data_removes_the_flight_followed(aero, clock, flight_ride):
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=70))
    polled(clock)
    assert records.anonymise(flight_ride.pk, LANDING + timedelta(days=400))
    assert not FlightWatch.objects.filter(booking=flight_ride).exists()
    (moved,) = moves(flight_ride)
    assert "LH 1234" not in moved and "15:25" in moved


def test_the_job_page_and_the_manage_page_show_the_moved_pickup(aero, clock, flight_ride, client):
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=70))
    polled(clock)
    flight_ride.refresh_from_db()
    _link, key = job_links.issue(flight_ride, flight_ride.driver)
    job = client.get(f"/chauffeur/job/{key}/", {"lang": "de"}).content.decode()
    assert "Flug LH 1234 landet um 15:10 · Abholung verschoben +65 Min." in job
    manage = links.manage_url(flight_ride.reference).removeprefix(settings.PUBLIC_BASE_URL)
    text = client.get(f"{manage}&lang=en").content.decode()
    assert (
        "Your flight LH 1234 is expected at 15:10; your chauffeur meets you at 15:25. "
        "(Booked for 14:20: moved with your flight.)"
    ) in text


def test_a_pickup_staff_moved_is_followed_from_there_and_never_moved_back(aero, clock, flight_ride):
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=70))
    polled(clock)
    staffs = LANDING + timedelta(hours=2)  # agreed with the traveller on the phone
    Booking.objects.filter(pk=flight_ride.pk).update(pickup_at=staffs)
    polled(clock, LANDING - timedelta(hours=2))
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == staffs
    watch = FlightWatch.objects.get(booking=flight_ride)
    assert watch.booked_pickup_at == staffs == watch.followed_pickup_at
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=150))  # later still: from staff's time on
    polled(clock, LANDING - timedelta(hours=1))
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == LANDING + timedelta(minutes=165)


def test_an_early_landing_is_not_moved_later_as_time_passes(aero, clock, flight_ride):
    answer(aero, "EnRoute", revised=LANDING - timedelta(minutes=40))
    polled(clock)
    for minutes_before in (70, 60, 50, 40):  # the set-off limit passes the target: no drift later
        polled(clock, LANDING - timedelta(minutes=minutes_before))
    answer(aero, "Arrived", revised=LANDING - timedelta(minutes=40))
    polled(clock, LANDING - timedelta(minutes=30))
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == LANDING - timedelta(minutes=25)
    assert len(moves(flight_ride)) == 1


def test_a_flight_that_moves_back_and_forth_tells_each_move(aero, clock, flight_ride):
    later, on_time = LANDING + timedelta(minutes=70), LANDING
    for minutes_before, revised in ((180, later), (120, on_time), (60, later)):
        answer(aero, "EnRoute", revised=revised)
        polled(clock, LANDING - timedelta(minutes=minutes_before))
    told = [message.body for message in mail.outbox if message.to == ["anna@example.com"]]
    assert len(told) == 3 and "15:25" in told[-1]
    assert len(moves(flight_ride)) == 3


def test_one_outage_stops_the_run_and_the_others_wait(aero, clock, ride):
    for _ in range(3):
        ride(BOOKED, origin=AIRPORT, flight_number="LH1234", luggage=0)
    answer(aero, http=503)
    polled(clock)
    assert len(aero.calls) == 1


def test_a_pickup_after_midnight_meets_the_flight_landing_the_evening_before(aero, clock, ride):
    night = datetime(2027, 6, 8, 0, 10, tzinfo=VIENNA)
    booking = ride(night, origin=AIRPORT, flight_number="LH1234", luggage=0)
    aero.add(responses.GET, f"{URL}/flights/number/LH1234/2027-06-08", json=[])
    flight = {
        "status": "EnRoute",
        "departure": {"airport": {"iata": "FRA", "countryCode": "DE"}},
        "arrival": {
            "airport": {"iata": "VIE"},
            "scheduledTime": utc(night - timedelta(minutes=25)),
            "revisedTime": utc(night + timedelta(minutes=20)),
        },
    }
    aero.add(responses.GET, f"{URL}/flights/number/LH1234/2027-06-07", json=[flight])
    polled(clock, night - timedelta(hours=2))
    booking.refresh_from_db()
    assert booking.pickup_at == night + timedelta(minutes=35)  # 00:30 + 15 minutes
    assert FlightWatch.objects.get(booking=booking).scheduled_landing == night - timedelta(minutes=25)


def test_an_aircrafts_registration_is_not_followed(aero, clock, ride):
    booking = ride(BOOKED, origin=AIRPORT, flight_number="OE-GLS", luggage=0)
    polled(clock)
    assert len(aero.calls) == 0
    assert FlightWatch.objects.get(booking=booking).status == FlightStatus.NOT_TRACKED
    polled(clock, LANDING - timedelta(hours=1))
    assert len(aero.calls) == 0


def test_a_pickup_after_midnight_is_not_taken_by_that_evenings_flight(aero, clock, ride):
    night = datetime(2027, 6, 8, 0, 10, tzinfo=VIENNA)
    booking = ride(night, origin=AIRPORT, flight_number="LH1234", luggage=0)
    evening = datetime(2027, 6, 7, 23, 45, tzinfo=VIENNA)  # the daily flight this pickup meets, on time
    answer(aero, "Expected", scheduled=evening)
    answer(
        aero, "Expected", scheduled=evening + timedelta(days=1), revised=evening + timedelta(days=1, hours=1)
    )
    polled(clock, night - timedelta(hours=2))
    booking.refresh_from_db()
    assert booking.pickup_at == night and moves(booking) == []
    assert FlightWatch.objects.get(booking=booking).scheduled_landing == evening


def test_a_pickup_staff_moved_to_another_day_meets_that_days_flight(aero, clock, flight_ride, admin_client):
    answer(aero, "Canceled")
    polled(clock)
    next_day = BOOKED + timedelta(days=1)  # the traveller rebooked on tomorrow's LH 1234
    Booking.objects.filter(pk=flight_ride.pk).update(pickup_at=next_day)
    answer(aero, "Expected", scheduled=LANDING + timedelta(days=1))
    polled(clock, LANDING - timedelta(hours=2))
    watch = FlightWatch.objects.get(booking=flight_ride)
    assert watch.status == FlightStatus.SCHEDULED and watch.scheduled_landing == LANDING + timedelta(days=1)
    assert [call.request.url.split("?")[0][-10:] for call in aero.calls] == ["2027-06-07", "2027-06-08"]
    html = admin_client.get(BOARD, {"range": "tomorrow"}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Flight LH 1234 lands 14:00" in html and "cancelled" not in html

    # yesterday's flight is gone: were it late, tomorrow's pickup stays; tomorrow's cancelled is news again
    answer(aero, "Canceled", scheduled=LANDING + timedelta(days=1))
    polled(clock, LANDING + timedelta(hours=12))
    offices = [message for message in mail.outbox if message.to == ["office@chauffeur.test"]]
    assert len(offices) == 2
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == next_day


def test_a_chauffeur_at_arrivals_early_waits_for_the_landing(aero, clock, flight_ride):
    clock.move_to(LANDING - timedelta(minutes=40))
    flight_ride.refresh_from_db()
    for state in ("accepted", "on_the_way", "arrived"):  # at arrivals an hour before the pickup
        ride_day.advance(flight_ride.pk, state, driver=flight_ride.driver, actor="Karl Huber (chauffeur)")
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=60))
    polled(clock)
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == LANDING + timedelta(minutes=75)
    answer(aero, "Arrived", revised=LANDING + timedelta(minutes=58))
    polled(clock, LANDING + timedelta(minutes=62))
    assert waiting.landing(flight_ride) == LANDING + timedelta(minutes=58)
    assert waiting.no_show_from(flight_ride, progress(flight_ride)) == LANDING + timedelta(minutes=58 + 60)


def test_a_move_after_the_reminder_is_told_once_and_not_reminded_again(aero, clock, flight_ride):
    RideDayPolicy.objects.filter(pk=1).update(traveller_reminder_hours=24)
    Booking.objects.filter(pk=flight_ride.pk).update(created_at=LANDING - timedelta(days=5))
    tasks.send_reminders.call()
    run_pending_jobs()
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=70))
    polled(clock, LANDING - timedelta(hours=2))
    tasks.send_reminders.call()
    run_pending_jobs()
    told = [message.subject for message in mail.outbox if message.to == ["anna@example.com"]]
    assert len(told) == 2, told  # the reminder, then the move: no second reminder for the new time


def test_a_pickup_staff_moved_is_not_said_to_be_moved_by_the_flight(aero, clock, flight_ride, client):
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=70))
    polled(clock)
    Booking.objects.filter(pk=flight_ride.pk).update(pickup_at=LANDING + timedelta(hours=2))
    manage = links.manage_url(flight_ride.reference).removeprefix(settings.PUBLIC_BASE_URL)
    text = client.get(f"{manage}&lang=en").content.decode()
    assert "your chauffeur meets you at 16:00." in text and "moved with your flight" not in text


def test_without_a_provider_every_page_says_the_flight_is_not_followed(
    settings, clock, flight_ride, client, admin_client
):
    settings.AERODATABOX_API_KEY = ""
    flight_ride.refresh_from_db()
    _link, key = job_links.issue(flight_ride, flight_ride.driver)
    job = client.get(f"/chauffeur/job/{key}/", {"lang": "en"}).content.decode()
    board = admin_client.get(BOARD, {"range": "today"}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for page in (job, board):
        assert "Flight LH 1234 not followed: the pickup stays" in page
    manage = links.manage_url(flight_ride.reference).removeprefix(settings.PUBLIC_BASE_URL)
    text = client.get(f"{manage}&lang=en").content.decode()
    assert "Your chauffeur meets you at 14:20 as booked: tell us if your flight is late." in text


def test_a_move_into_the_chauffeurs_next_ride_alerts_staff(aero, clock, flight_ride, ride, fleet):
    next_ride = ride(
        LANDING + timedelta(hours=2), origin="Hotel Sacher", destination=AIRPORT, status="confirmed"
    )
    assign(next_ride, fleet["karl"], fleet["sedan2"])
    run_pending_jobs()
    mail.outbox.clear()
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=110))
    polled(clock)
    flight_ride.refresh_from_db()
    assert flight_ride.pickup_at == LANDING + timedelta(minutes=125)  # the move stands: they land then
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=130))  # later still: nothing new to tell
    polled(clock, LANDING - timedelta(hours=2))
    (alert,) = [message for message in mail.outbox if message.to == ["office@chauffeur.test"]]
    assert f"The moved pickup overlaps {next_ride.reference}" in alert.body


def test_a_traveller_who_chose_texts_gets_one_text_per_real_move(settings, aero, clock, flight_ride):
    settings.SMS_PROVIDER = "twilio"
    settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN = ACCOUNT, TOKEN
    settings.TWILIO_FROM_NUMBER, settings.TWILIO_API_BASE = SENDER, BASE
    aero.add(responses.POST, MESSAGES_URL, json={"sid": "SM0001", "status": "queued"}, status=201)
    Booking.objects.filter(pk=flight_ride.pk).update(text_messages=True, phone="0664 123 45 67")
    before = len(sent_texts(aero))
    answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=70))
    polled(clock)
    for minutes_before, revised in ((120, 70), (60, 72)):  # the same estimate, then a wobble: no news
        answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=revised))
        polled(clock, LANDING - timedelta(minutes=minutes_before))
    (text,) = sent_texts(aero)[before:]
    assert text["To"] == "+436641234567" and "15:25" in text["Body"]


def test_the_budget_is_a_day_in_vienna(aero):
    FlightBudget.objects.create(daily_calls=1)
    late_evening = datetime(2027, 6, 7, 23, 59, tzinfo=VIENNA)
    with time_machine.travel(late_evening, tick=False) as clock:
        assert budget.spend() and not budget.spend()
        clock.move_to(late_evening + timedelta(minutes=2))  # 00:01 in Vienna, still 22:01 on the 7th in UTC
        assert budget.spend() and not budget.spend()


def test_staffs_nudge_of_a_pickup_the_night_flight_moved_past_four_keeps_that_flight(aero, clock, ride):
    night = datetime(2027, 6, 8, 0, 10, tzinfo=VIENNA)
    booking = ride(night, origin=AIRPORT, flight_number="LH1234", luggage=0)
    evening = datetime(2027, 6, 7, 23, 45, tzinfo=VIENNA)
    answer(aero, "EnRoute", scheduled=evening, revised=evening + timedelta(hours=4))  # lands 03:45
    answer(aero, "Expected", scheduled=evening + timedelta(days=1))  # the next evening's, on time
    polled(clock, night - timedelta(hours=2))
    booking.refresh_from_db()
    assert booking.pickup_at == evening + timedelta(hours=4, minutes=15)
    Booking.objects.filter(pk=booking.pk).update(pickup_at=booking.pickup_at + timedelta(minutes=10))
    polled(clock, night)
    watch = FlightWatch.objects.get(booking=booking)
    assert watch.scheduled_landing == evening and watch.estimated_landing == evening + timedelta(hours=4)


def test_a_delayed_way_out_too_late_for_its_way_back_alerts_staff_once(aero, clock, flight_ride, ride):
    Booking.objects.filter(pk=flight_ride.pk).update(estimated_arrival=BOOKED + timedelta(minutes=24))
    way_back = ride(
        LANDING + timedelta(minutes=90), origin="Hotel Sacher", destination=AIRPORT, way_out=flight_ride
    )
    for minutes_before, revised in ((180, 110), (120, 130)):  # late, then later still
        answer(aero, "EnRoute", revised=LANDING + timedelta(minutes=revised))
        polled(clock, LANDING - timedelta(minutes=minutes_before))
    flight_ride.refresh_from_db()
    assert flight_ride.estimated_arrival == flight_ride.pickup_at + timedelta(minutes=24)  # moved with it
    (alert,) = [message for message in mail.outbox if message.to == ["office@chauffeur.test"]]
    assert f"no longer leaves time for the other ride of the return trip ({way_back.reference})" in alert.body


def test_checks_at_booking_keep_their_half_whatever_the_flights_followed_spent(aero):
    FlightBudget.objects.create(daily_calls=10)
    assert all(budget.spend() for _ in range(6))  # the flights followed took more than half
    assert all(budget.spend(at_booking=True) for _ in range(4))
    assert not budget.spend(at_booking=True) and not budget.spend()  # ten calls: the day is spent
