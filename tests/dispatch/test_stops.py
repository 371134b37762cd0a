"""Stops on the way through every door that books: the price, the checkout (REST and MCP), the booking's
answer, the confirmation, the invoice, the chauffeur's mail and job page, staff's change, the removal of
personal data, and every refusal storing nothing."""

import io
import re
from datetime import timedelta
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

import pytest
import time_machine
from django.core import mail
from django.utils import timezone
from icalendar import Calendar
from pypdf import PdfReader

from booking import calendar, personal_data, presentation, ride
from booking.models import Booking, RideState
from dispatch import changes, job_page, ride_day
from invoicing import invoice_pdf
from invoicing.documents import for_booking
from pricing.models import Tariff
from pricing.services import TARIFFS
from tests.booking.test_checkout import post
from tests.booking.test_checkout import ride as ride_data
from tests.conftest import assert_problem
from tests.dispatch.conftest import assign
from tests.mcp_endpoint.mcp import call, checkout_arguments, output_validator, tool_problem, tool_result
from tests.payments.sandbox import pay_in_the_sandbox

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]

STOPS = [{"address": "Stephansdom", "waitMinutes": 20}, {"address": "Schloss Schönbrunn"}]


@pytest.fixture(autouse=True)
def stop_fee(db):
    Tariff.objects.update(stop_fee=Decimal("10.00"))
    TARIFFS.bump()  # as the admin's save does


def priced(client, data: dict) -> dict:
    """What a client does: the route through the stops, then the price with their waits."""
    addresses = "|".join(stop["address"] for stop in data.get("stops", ()))
    # an empty `stops` is none, as an empty `stopWaits` is
    route = client.get("/api/v1/distance", {"from": data["from"], "to": data["to"], "stops": addresses})
    assert route.status_code == 200, route.content
    params = {
        "vehicleClass": data["vehicleClass"],
        "distanceKm": route.json()["distance"],
        "inZoneA": "true",
        "stopWaits": ",".join(str(stop.get("waitMinutes", 0)) for stop in data.get("stops", ())),
    }
    response = client.get("/api/v1/price", params)
    assert response.status_code == 200, response.content
    return response.json()


def book(client, agent, stops=STOPS, **ride) -> Booking:
    data = ride_data(**({"stops": stops} if stops else {}), **ride)
    amount = round(priced(client, data)["priceEur"] * 100)
    response = post(client, "/api/v1/checkout", {"amount": amount, "bookingData": data}, **agent)
    assert response.status_code == 201, response.content
    return Booking.objects.get(reference=response.json()["reference"])


def test_the_price_has_a_line_per_stop_and_runs_the_route_through_them(client):
    plain = priced(client, ride_data())
    price = priced(client, ride_data(stops=STOPS))
    stops = [line for line in price["lines"] if line["code"] == "stop"]
    # a stop fee each, and 20 minutes' wait: two started quarter hours at 12.00
    assert [(line["label"], line["amountEur"]) for line in stops] == [
        ("Stop 1, waiting 20 min", 34.0),
        ("Stop 2", 10.0),
    ]
    assert price["priceEur"] > plain["priceEur"] + 44.0  # the longer route costs more too
    assert round(sum(line["amountEur"] for line in price["lines"]), 2) == price["priceEur"]


def test_a_checkout_with_stops_stores_them_and_the_answers_show_them(client, agent):
    booking = book(client, agent)
    assert booking.stops == [
        {"address": "Stephansdom", "wait_minutes": 20},
        {"address": "Schloss Schönbrunn", "wait_minutes": 0},
    ]
    driving = timedelta(seconds=booking.duration_s)
    assert booking.estimated_arrival == booking.pickup_at + driving + timedelta(minutes=20)
    answer = client.get(f"/api/v1/bookings/{booking.reference}", **agent).json()
    assert answer["stops"] == [
        {"address": "Stephansdom", "waitMinutes": 20},
        {"address": "Schloss Schönbrunn", "waitMinutes": 0},
    ]
    plain = book(client, agent, stops=None)
    assert client.get(f"/api/v1/bookings/{plain.reference}", **agent).json()["stops"] == []
    assert plain.stops == []


@pytest.mark.parametrize(
    ("stops", "status", "code"),
    [
        ([{"address": "Atlantis"}], 422, "route_not_found"),
        ([{"address": " "}], 400, "invalid_request"),
        ([{"address": "Stephansdom", "waitMinutes": 241}], 400, "invalid_request"),
        ([{"address": "Stephansdom"}] * 11, 400, "invalid_request"),
        ([{"address": "Stephansdom"}] * 6, 400, "too_many_stops"),
    ],
)
def test_a_checkout_with_stops_it_cannot_take_stores_nothing(client, agent, stops, status, code):
    response = post(
        client, "/api/v1/checkout", {"amount": 9900, "bookingData": ride_data(stops=stops)}, **agent
    )
    problem = assert_problem(response, status, code)
    if code == "too_many_stops":
        assert problem["maximumStops"] == 5 and "bookingData.stops" in problem["errors"]
    if code == "invalid_request":
        assert any(name.startswith("bookingData.stops") for name in problem["errors"]), problem
    assert Booking.objects.count() == 0


def test_a_class_with_fewer_stops_refuses_them_and_the_page_offers_the_others(client):
    Tariff.objects.filter(vehicle_class__code="first").update(max_stops=1)
    TARIFFS.bump()
    response = client.get(
        "/api/page/quote",
        {
            "from": "Hotel Sacher",
            "to": "Flughafen Wien",
            "stops": "Stephansdom|Belvedere",
            "stopWaits": "15,0",
        },
    )
    assert response.status_code == 200, response.content
    classes = {item["vehicleClass"]: item for item in response.json()["classes"]}
    assert (classes["first"]["price"], classes["first"]["problem"]) == (None, "too_many_stops")
    stops = [line for line in classes["executive"]["price"]["lines"] if line["code"] == "stop"]
    assert [line["amountEur"] for line in stops] == [22.0, 10.0]
    mismatched = client.get(
        "/api/page/quote",
        {"from": "Hotel Sacher", "to": "Flughafen Wien", "stops": "Stephansdom", "stopWaits": "15,0"},
    )
    assert "stopWaits" in assert_problem(mismatched, 400, "invalid_request")["errors"]


def test_an_agent_books_stops_through_mcp(client, agent):
    route = tool_result(
        call(
            client,
            agent,
            "booking.estimate_distance",
            {"from": "Hotel Sacher", "to": "Flughafen Wien", "stops": ["Stephansdom"]},
        )
    )["structuredContent"]
    price = tool_result(
        call(
            client,
            agent,
            "booking.calculate_price",
            {"vehicleClass": "executive", "distanceKm": route["distance"], "stopWaits": [30]},
        )
    )["structuredContent"]
    arguments = checkout_arguments(client, agent)
    arguments["amount"] = round(price["priceEur"] * 100)
    arguments["bookingData"]["stops"] = [{"address": "Stephansdom", "waitMinutes": 30}]
    result = tool_result(call(client, agent, "booking.create_checkout", arguments))
    assert result["isError"] is False, result
    state = tool_result(
        call(client, agent, "booking.get_booking", {"reference": result["structuredContent"]["reference"]})
    )
    output_validator(client, agent, "booking.get_booking").validate(state["structuredContent"])
    assert state["structuredContent"]["stops"] == [{"address": "Stephansdom", "waitMinutes": 30}]
    refused = checkout_arguments(client, agent)
    refused["bookingData"]["stops"] = [{"address": "Stephansdom"}] * 6
    problem = tool_problem(call(client, agent, "booking.create_checkout", refused))
    assert (problem["code"], problem["maximumStops"]) == ("too_many_stops", 5)
    assert Booking.objects.count() == 1


def test_the_confirmation_invoice_mail_and_job_page_name_the_stops_in_order(
    client, agent, fleet, django_capture_on_commit_callbacks
):
    booking = book(client, agent)  # German: the ride's locale
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        pay_in_the_sandbox(booking)
    (confirmation,) = [message for message in mail.outbox if message.to == ["anna@example.com"]]
    body = confirmation.body.replace("\xa0", " ")  # 34,00 € is written with a no-break space
    assert "Halt 1: Stephansdom, 20 Min. Wartezeit: 34,00 €\nHalt 2: Schloss Schönbrunn: 10,00 €" in body
    invoice = for_booking(booking).content
    assert invoice["stops"] == ["Stephansdom, 20 Min. Wartezeit", "Schloss Schönbrunn"]
    # the invoice names the stops above its lines, which say their number and wait
    assert [line["label"] for line in invoice["lines"] if line["label"].startswith("Halt")] == [
        "Halt 1, 20 Min. Wartezeit",
        "Halt 2",
    ]
    pages = PdfReader(io.BytesIO(invoice_pdf.render(for_booking(booking)))).pages
    printed = " ".join(" ".join(page.extract_text() for page in pages).split())
    assert "Halte unterwegs: Stephansdom, 20 Min. Wartezeit; Schloss Schönbrunn" in printed
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assign(booking, fleet["karl"], fleet["sedan"])
    (job,) = [message for message in mail.outbox if message.to == [fleet["karl"].email]]
    assert (
        "Von:        Hotel Sacher\nHalt 1:     Stephansdom, 20 Min. Wartezeit\n"
        "Halt 2:     Schloss Schönbrunn\nNach:       Flughafen Wien\n"
    ) in job.body
    ((_name, entry, _type),) = job.attachments
    assert "Halt 1: Stephansdom\\, 20 Min. Wartezeit" in entry.replace("\r\n ", "")
    path = re.search(r"https://chauffeur\.test(/chauffeur/job/[\w.-]+/)", job.body)[1]
    page = client.get(path).content.decode()
    stops = re.search(r'<dd id="stops">(.*?)</dd>', page, re.S)[1]
    links = re.findall(r'href="([^"]+)"', stops)
    assert [parse_qs(urlsplit(link.replace("&amp;", "&")).query)["destination"] for link in links] == [
        ["Stephansdom"],
        ["Schloss Schönbrunn"],
    ]
    assert stops.index("Stephansdom") < stops.index("Schloss Schönbrunn")


def test_navigation_on_board_runs_through_the_stops(client, agent, fleet):
    booking = book(client, agent)
    pay_in_the_sandbox(booking)
    assign(booking, fleet["karl"], fleet["sedan"])
    ride_day.advance(booking.pk, RideState.ACCEPTED, driver=None, actor="eva (staff)")
    with time_machine.travel(booking.pickup_at - timedelta(minutes=30), tick=False) as clock:
        ride_day.advance(booking.pk, RideState.ON_THE_WAY, driver=None, actor="eva (staff)")
        clock.move_to(booking.pickup_at - timedelta(minutes=5))
        ride_day.advance(booking.pk, RideState.ARRIVED, driver=None, actor="eva (staff)")
        booking.refresh_from_db()
        to_pickup = parse_qs(urlsplit(job_page._job(booking, "key").navigate).query)
        clock.move_to(booking.pickup_at)
        ride_day.advance(booking.pk, RideState.ON_BOARD, driver=None, actor="eva (staff)")
        booking.refresh_from_db()
        navigate = parse_qs(urlsplit(job_page._job(booking, "key").navigate).query)
    assert to_pickup["destination"] == ["Hotel Sacher"] and "waypoints" not in to_pickup
    assert navigate["destination"] == ["Flughafen Wien"]
    assert navigate["waypoints"] == ["Stephansdom|Schloss Schönbrunn"]


def test_staff_change_keeps_the_stops_and_their_price(client, agent):
    booking = book(client, agent)
    pay_in_the_sandbox(booking)
    later = booking.pickup_at + timedelta(hours=2)
    changed = changes.change_ride(
        booking.pk, pickup=later, vehicle_class="executive", through_provider=False, actor="eva (staff)"
    ).booking
    assert [line.amount for line in changed.quote.lines if line.code == "stop"] == [
        Decimal("34.00"),
        Decimal("10.00"),
    ]
    assert changed.amount_cents == booking.amount_cents
    assert changed.estimated_arrival == later + timedelta(seconds=booking.duration_s, minutes=20)


def test_removing_personal_data_removes_the_stops_and_keeps_their_lines(client, agent):
    booking = book(client, agent)
    assert personal_data.anonymise(booking.pk, timezone.now())
    booking.refresh_from_db()
    assert booking.stops == []
    labels = [line.label for line in presentation.price_lines(booking) if line.label.startswith("Stop")]
    assert labels == ["Stop 1, waiting 20 min", "Stop 2"]
    assert booking.amount_cents == round(sum(line.amount for line in presentation.price_lines(booking)) * 100)


def test_a_tour_with_a_stop_outside_its_area_is_refused(client, agent):
    response = post(
        client,
        "/api/v1/checkout",
        {
            "amount": 9900,
            "bookingData": ride_data(
                to="Stephansdom", tourName="vienna-city-tour", stops=[{"address": "Salzburg Hauptbahnhof"}]
            ),
        },
        **agent,
    )
    problem = assert_problem(response, 400, "outside_tour_area")
    assert "bookingData.stops" in problem["errors"] and "this stop is" in problem["detail"]
    assert Booking.objects.count() == 0


def test_the_waits_at_the_stops_keep_the_car_taken_and_the_board_shows_the_stops(client, agent, admin_client):
    booking = book(client, agent)
    plain = book(client, agent, stops=None)
    assert ride.duration(booking) == timedelta(seconds=booking.duration_s, minutes=20)
    assert ride.duration(plain) == timedelta(seconds=plain.duration_s)
    pay_in_the_sandbox(booking)
    board = admin_client.get("/admin/booking/booking/dispatch/", {"range": "next7"}).content.decode()
    card = board[board.index(f'id="ride-{booking.pk}"') :].split("</a>")[0]
    assert 'Hotel Sacher → <span class="stops">2 stops</span> → Flughafen Wien' in card
    end = timezone.localtime(booking.pickup_at + ride.duration(booking))
    assert f"–{end:%H:%M}</span>" in card


def test_navigation_on_board_leaves_more_stops_than_a_phone_routes_to_their_own_links(client, agent, fleet):
    booking = book(client, agent, stops=[{"address": "Stephansdom"}] * 4)
    pay_in_the_sandbox(booking)
    assign(booking, fleet["karl"], fleet["sedan"])
    ride_day.advance(booking.pk, RideState.ACCEPTED, driver=None, actor="eva (staff)")
    with time_machine.travel(booking.pickup_at - timedelta(minutes=30), tick=False) as clock:
        for state in (RideState.ON_THE_WAY, RideState.ARRIVED, RideState.ON_BOARD):
            ride_day.advance(booking.pk, state, driver=None, actor="eva (staff)")
            clock.shift(timedelta(minutes=15))
        booking.refresh_from_db()
        job = job_page._job(booking, "key")
    assert "waypoints" not in parse_qs(urlsplit(job.navigate).query)
    assert len(job.stops) == 4


def test_a_hire_or_a_tour_must_cover_the_waits_at_its_stops(client, agent):
    waits = [{"address": "Stephansdom", "waitMinutes": 120}, {"address": "Belvedere", "waitMinutes": 120}]
    tour = ride_data(to="Stephansdom", tourName="vienna-city-tour", stops=waits)  # a 3-hour tour
    response = post(client, "/api/v1/checkout", {"amount": 9900, "bookingData": tour}, **agent)
    problem = assert_problem(response, 400, "hire_too_short")
    assert "bookingData.stops" in problem["errors"] and problem["minimumHours"] > 4
    assert (
        "The drive and the waits at the stops take about 4.5 hours; 3 hours cannot cover them."
        in problem["detail"]
    )
    hired = ride_data(bookingType="hourly", durationHours=3, stops=waits)
    response = post(client, "/api/v1/checkout", {"amount": 9900, "bookingData": hired}, **agent)
    assert "bookingData.durationHours" in assert_problem(response, 400, "hire_too_short")["errors"]
    assert Booking.objects.count() == 0


def test_a_stop_address_is_one_line_without_the_separator(client, agent):
    for address in ("Stephansdom | Belvedere", "Stephansdom\nBelvedere"):
        data = ride_data(stops=[{"address": address}])
        response = post(client, "/api/v1/checkout", {"amount": 9900, "bookingData": data}, **agent)
        assert "bookingData.stops.0.address" in assert_problem(response, 400, "invalid_request")["errors"]
    assert Booking.objects.count() == 0


def test_a_class_allowing_fewer_stops_since_still_changes_a_booking_that_has_them(client, agent):
    booking = book(client, agent)
    pay_in_the_sandbox(booking)
    Tariff.objects.update(max_stops=1)
    TARIFFS.bump()
    later = booking.pickup_at + timedelta(hours=1)
    changed = changes.change_ride(
        booking.pk, pickup=later, vehicle_class="executive", through_provider=False, actor="eva (staff)"
    ).booking
    assert (changed.pickup_at, changed.amount_cents) == (later, booking.amount_cents)
    assert [line.code for line in changed.quote.lines].count("stop") == 2


def test_the_calendar_entry_lasts_as_long_as_the_car_is_taken(client, agent):
    booking = book(client, agent)
    entry = calendar.ride_event(booking, locale="en", for_chauffeur=False, link="")
    event = Calendar.from_ical(entry).walk("VEVENT")[0]
    assert event["dtend"].dt - event["dtstart"].dt == max(ride.duration(booking), calendar.SHORTEST)
    assert ride.duration(booking) == timedelta(seconds=booking.duration_s, minutes=20)
