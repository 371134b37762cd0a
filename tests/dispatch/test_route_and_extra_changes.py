"""A booking's stops, extras and way back changed through /api/v1 and MCP, quote first, as its pickup and class
are (test_booking_changes.py): new stops routed and priced again, extras priced at today's prices and
checked against the car assigned, a return trip's way back changed by its own reference. Refusals change
nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from booking.models import Booking
from dispatch.models import ChangeQuote
from fleet.models import VehicleEquipment
from payments import document_balance
from payments.models import Surcharge
from pricing.models import Extra, Tariff
from pricing.services import TARIFFS
from privacy import records
from tests.booking.test_checkout import post
from tests.booking.test_return_trips import trip, trip_amount
from tests.conftest import assert_problem
from tests.dispatch.conftest import assign
from tests.dispatch.test_booking_changes import later, make, priced_by_hand, quote, through_mcp
from tests.queued import run_pending_jobs
from webhooks.models import Endpoint, Event

pytestmark = pytest.mark.django_db

STOP = {"address": "Wien Hauptbahnhof", "waitMinutes": 15}


def kept(booking: Booking) -> tuple:
    booking = Booking.objects.get(pk=booking.pk)
    return (
        booking.stops,
        booking.quote_record,
        booking.amount_cents,
        booking.distance_km,
        booking.updated_at,
    )


def test_a_stop_is_routed_and_priced_and_made_on_the_route_quoted(client, agent, paid, stripe):
    Endpoint.objects.create(url="https://dispatch.example/hooks")  # staff's: hears of every booking
    before = kept(paid)
    body = quote(client, paid, {"stops": [STOP]}, **agent).json()

    assert body["stops"] == [STOP] and body["distanceKm"] > float(paid.distance_km)
    assert "stop" in [line["code"] for line in body["price"]["lines"]]
    assert body["settlement"] == "pay" and body["differenceEur"] > 0
    assert kept(paid) == before  # a quote changes nothing

    made = make(client, paid, body["id"], **agent)

    assert made.status_code == 200, made.content
    moved = Booking.objects.get(pk=paid.pk)
    assert moved.stops == [{"address": "Wien Hauptbahnhof", "wait_minutes": 15}]
    assert float(moved.distance_km) == body["distanceKm"]
    assert moved.amount_cents == round(body["price"]["priceEur"] * 100)
    assert moved.estimated_arrival == moved.pickup_at + timedelta(seconds=moved.duration_s, minutes=15)
    assert made.json()["booking"]["stops"] == [STOP]
    (link,) = stripe.open_sessions()
    stripe.pay(client, link)
    (changed,) = moved.history.filter(kind="change")
    assert "stops — → Wien Hauptbahnhof (15 min)" in changed.text
    (event,) = Event.objects.filter(type="booking.changed")
    assert event.payload["data"]["changes"]["stops"] == {"before": [], "after": [STOP]}

    body = quote(client, moved, {"stops": []}, **agent).json()  # and taken away again: refunded
    assert (body["stops"], body["settlement"]) == ([], "refund")
    assert make(client, moved, body["id"], **agent).status_code == 200
    back = Booking.objects.get(pk=paid.pk)
    assert (back.stops, back.amount_cents, back.distance_km) == ([], paid.amount_cents, paid.distance_km)
    assert stripe.net() == back.amount_cents
    assert document_balance.balance(back).adds_up


def test_extras_are_priced_at_todays_prices_and_taken_away_refunded(client, agent, paid, stripe):
    body = quote(client, paid, {"extras": ["child-seat:2", "name-sign"]}, **agent).json()

    assert body["extras"] == [{"code": "child-seat", "quantity": 2}, {"code": "name-sign", "quantity": 1}]
    assert round(body["differenceEur"] * 100) == 2 * 1000 + 1500 and body["settlement"] == "pay"
    assert make(client, paid, body["id"], **agent).status_code == 200
    (link,) = stripe.open_sessions()
    stripe.pay(client, link)
    dearer = Booking.objects.get(pk=paid.pk)
    assert [(extra.code, extra.quantity) for extra in dearer.quote.extras] == [
        ("child-seat", 2),
        ("name-sign", 1),
    ]
    assert dearer.amount_cents == paid.amount_cents + 3500 == stripe.net()
    (changed,) = dearer.history.filter(kind="change")
    assert "extras — → child-seat × 2, name-sign" in changed.text

    same = quote(client, dearer, {"extras": ["name-sign", "child-seat", "child-seat"]}, **agent)
    assert_problem(same, 400, "invalid_request")  # the same extras, named otherwise: no change

    body = quote(client, dearer, {"extras": []}, **agent).json()
    assert (body["extras"], body["settlement"], round(body["settledEur"] * 100)) == ([], "refund", 3500)
    assert make(client, dearer, body["id"], **agent).status_code == 200
    back = Booking.objects.get(pk=paid.pk)
    assert back.quote.extras == () and back.amount_cents == paid.amount_cents == stripe.net()
    assert document_balance.balance(back).adds_up


@pytest.mark.parametrize(
    ("change", "code", "field"),
    [
        ({"extras": ["child-seat:9"]}, "too_many_extras", "extras"),
        ({"extras": ["champagne"]}, "unknown_extra", "extras"),
        ({"stops": [STOP] * 6}, "too_many_stops", "stops"),
        ({"stops": [{"address": "a|b"}]}, "invalid_request", "stops.0.address"),
    ],
    ids=["too many pieces", "no such extra", "too many stops", "a stop with a separator"],
)
def test_bad_stops_and_extras_are_refused_and_nothing_kept(client, agent, paid, change, code, field):
    before = kept(paid)

    refused = quote(client, paid, change, **agent)

    assert_problem(refused, 400, code, field)
    assert kept(paid) == before and not ChangeQuote.objects.exists()


def test_a_car_assigned_must_carry_the_extras_and_seat_the_party(client, agent, paid, fleet):
    assign(paid, fleet["karl"], fleet["van"])  # seats 3, carries 3 pieces, no child seat
    before = kept(paid)

    lacking = quote(client, paid, {"extras": ["child-seat"]}, **agent)
    crowded = quote(client, paid, {"passengers": 4}, **agent)

    assert "W-3000C" in assert_problem(lacking, 409, "not_changeable")["detail"]
    assert "W-3000C" in assert_problem(crowded, 409, "not_changeable")["detail"]
    assert kept(paid) == before and not ChangeQuote.objects.exists()
    child_seat = Extra.objects.get(code="child-seat")
    equipped = VehicleEquipment.objects.create(vehicle=fleet["van"], extra=child_seat, quantity=1)
    body = quote(client, paid, {"extras": ["child-seat"]}, **agent).json()
    assert make(client, paid, body["id"], **agent).status_code == 200
    assert Booking.objects.get(pk=paid.pk).quote.extras[0].code == "child-seat"

    equipped.delete()  # the car lost its seat since: staff's to replace, a new pickup time still goes
    moved = quote(client, paid, {"pickupDatetime": later(paid, 1)}, **agent)
    assert moved.status_code == 201, moved.content


def test_a_price_agreed_with_staff_keeps_its_extras_and_stops(client, agent, paid):
    priced_by_hand(paid)
    before = kept(paid)

    extras = quote(client, paid, {"extras": ["name-sign"]}, **agent)
    stops = quote(client, paid, {"stops": [STOP]}, **agent)

    assert_problem(extras, 409, "not_changeable", "extras")
    assert_problem(stops, 409, "not_changeable", "stops")
    assert kept(paid) == before and not ChangeQuote.objects.exists()


def test_a_return_trips_way_back_changes_by_its_own_reference(client, agent, stripe):
    data = trip()
    answer = post(
        client, "/api/v1/checkout", {"amount": trip_amount(client, data), "bookingData": data}, **agent
    )
    assert answer.status_code == 201, answer.content
    (session,) = stripe.sessions.values()
    stripe.pay(client, session.id)
    way_out = Booking.objects.get(reference=answer.json()["reference"])
    way_back = Booking.objects.get(reference=answer.json()["wayBack"]["reference"])
    before = kept(way_out)

    stops = quote(client, way_out, {"stops": [STOP]}, **agent)
    too_early = quote(client, way_back, {"pickupDatetime": later(way_out, 0)}, **agent)

    assert_problem(stops, 409, "not_changeable", "stops")
    assert_problem(too_early, 400, "invalid_request", "pickupDatetime")
    assert kept(way_out) == before and not ChangeQuote.objects.exists()

    body = quote(
        client, way_back, {"pickupDatetime": later(way_back, 1), "vehicleClass": "first"}, **agent
    ).json()
    assert body["settlement"] == "pay" and body["reference"] == way_back.reference
    assert make(client, way_back, body["id"], **agent).status_code == 200
    (link,) = stripe.open_sessions()
    stripe.pay(client, link)
    moved = Booking.objects.get(pk=way_back.pk)
    assert (moved.vehicle_class, moved.pickup_at) == ("first", way_back.pickup_at + timedelta(hours=1))
    assert Booking.objects.get(pk=way_out.pk).amount_cents == way_out.amount_cents  # the way out as it was
    assert stripe.net() == way_out.amount_cents + moved.amount_cents
    assert document_balance.balance(moved).adds_up and not Surcharge.objects.filter(status="pending").exists()


def test_an_agent_changes_stops_and_extras_through_mcp(client, agent, paid):
    body, made = through_mcp(client, agent, paid, {"stops": [STOP], "extras": ["name-sign"]})

    assert body["stops"] == [STOP] and body["extras"] == [{"code": "name-sign", "quantity": 1}]
    assert made["booking"]["stops"] == [STOP] and made["booking"]["extras"][0]["code"] == "name-sign"
    moved = Booking.objects.get(pk=paid.pk)
    assert moved.stops[0]["address"] == "Wien Hauptbahnhof" and moved.quote.extras[0].code == "name-sign"


def test_another_class_takes_only_the_stops_it_allows(client, agent, paid):
    Tariff.objects.filter(vehicle_class__code="business-van").update(max_stops=3)
    TARIFFS.bump()
    with_stops = quote(client, paid, {"stops": [STOP, {"address": "Stephansplatz"}]}, **agent).json()
    assert make(client, paid, with_stops["id"], **agent).status_code == 200
    Tariff.objects.filter(vehicle_class__code="business-van").update(max_stops=1)  # lowered since
    Tariff.objects.filter(vehicle_class__code="first").update(max_stops=1)
    TARIFFS.bump()
    booked = Booking.objects.get(pk=paid.pk)
    before = kept(booked)

    same_class = quote(client, booked, {"pickupDatetime": later(booked, 1)}, **agent)
    other_class = quote(client, booked, {"vehicleClass": "first"}, **agent)

    assert same_class.status_code == 201, same_class.content  # its booked stops stay in its class
    assert_problem(other_class, 400, "too_many_stops")
    assert kept(booked) == before


def test_a_round_trip_with_stops_changes_its_waits_on_the_same_road(client, agent, paid):
    Booking.objects.filter(pk=paid.pk).update(
        destination=paid.origin, stops=[{"address": "Stephansplatz", "wait_minutes": 0}]
    )
    round_trip = Booking.objects.get(pk=paid.pk)

    body = quote(
        client, round_trip, {"stops": [{"address": "stephansplatz", "waitMinutes": 30}]}, **agent
    ).json()

    assert body["stops"] == [{"address": "Stephansplatz", "waitMinutes": 30}]  # named as booked
    assert body["distanceKm"] == float(round_trip.distance_km)  # the same road: not routed again
    assert make(client, round_trip, body["id"], **agent).status_code == 200
    waited = Booking.objects.get(pk=paid.pk)
    assert waited.estimated_arrival == waited.pickup_at + timedelta(seconds=waited.duration_s, minutes=30)
    no_stops = quote(client, waited, {"stops": []}, **agent)
    assert_problem(no_stops, 400, "invalid_request", "to")  # then it would go nowhere


def test_the_change_mail_lists_the_stops_and_extras_and_removing_the_data_forgets_the_old_ones(
    client, agent, paid, mailoutbox
):
    body = quote(client, paid, {"stops": [STOP], "extras": ["name-sign"]}, **agent).json()
    make(client, paid, body["id"], **agent)
    unused = quote(client, paid, {"stops": [{"address": "Schloss Schönbrunn"}]}, **agent).json()
    run_pending_jobs()

    (changed,) = [mail for mail in mailoutbox if "geändert" in mail.subject]
    assert "  Halt 1: Wien Hauptbahnhof, 15 Min. Wartezeit: 15,00\xa0€\n" in changed.body  # why it costs more
    assert "  Namensschild bei der Ankunft: 15,00\xa0€\n" in changed.body

    assert records.anonymise(paid.pk, timezone.now())

    history = " ".join(
        event.text + str(event.params) for event in Booking.objects.get(pk=paid.pk).history.all()
    )
    assert "Hauptbahnhof" not in history and "Flughafen" not in history
    assert not ChangeQuote.objects.filter(public_id=unused["id"]).exists()
