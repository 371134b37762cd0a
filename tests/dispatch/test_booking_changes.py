"""A booking changed through /api/v1, quote first: the change quote prices it and changes nothing; the change
made under its id refunds or asks the difference through Stripe (a fake that keeps its own books), tells the
customer, and names the token and the door in the history. Refusals change nothing."""

from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.utils import timezone

from booking.models import Booking, RideState, RideStep
from dispatch.models import ChangeQuote
from fleet.models import Vehicle
from invoicing.models import CreditNote, Invoice
from payments import document_balance
from payments.models import Refund, Surcharge
from pricing.models import VehicleClass
from pricing.quote import PriceByHand, with_price_by_hand
from tests.booking.test_checkout import post, ride, server_amount
from tests.conftest import assert_problem, bearer
from tests.dispatch.conftest import assign
from tests.mcp_endpoint.mcp import call, output_validator, tool_problem, tool_result

pytestmark = pytest.mark.django_db


def quote(client, booking: Booking, change: dict, **headers):
    return post(client, f"/api/v1/bookings/{booking.reference}/change-quotes", change, **headers)


def make(client, booking: Booking, quote_id: str, **headers):
    return post(
        client, f"/api/v1/bookings/{booking.reference}/changes", {"changeQuoteId": quote_id}, **headers
    )


def later(booking: Booking, hours: int) -> str:
    return timezone.localtime(booking.pickup_at + timedelta(hours=hours)).isoformat()


def through_mcp(client, agent, booking: Booking, change: dict) -> tuple[dict, dict]:
    """An agent's change through MCP, quote then change: both answers' structured content, each checked
    against its tool's output schema."""
    quoted = tool_result(
        call(client, agent, "booking.quote_change", {"reference": booking.reference, **change})
    )
    assert not quoted["isError"], quoted
    body = quoted["structuredContent"]
    output_validator(client, agent, "booking.quote_change").validate(body)
    made = tool_result(
        call(
            client,
            agent,
            "booking.change_booking",
            {"reference": booking.reference, "changeQuoteId": body["id"]},
        )
    )
    assert not made["isError"], made
    output_validator(client, agent, "booking.change_booking").validate(made["structuredContent"])
    return body, made["structuredContent"]


def test_a_quote_prices_the_change_and_changes_nothing(client, agent, paid):
    before = (paid.pickup_at, paid.vehicle_class, paid.amount_cents, paid.updated_at)

    answer = quote(client, paid, {"vehicleClass": "first", "pickupDatetime": later(paid, 2)}, **agent)

    assert answer.status_code == 201, answer.content
    body = answer.json()
    new_price = round(body["price"]["priceEur"] * 100)
    assert body["id"].startswith("cq_") and body["reference"] == paid.reference
    assert (body["vehicleClass"], body["pickupDatetime"]) == ("first", later(paid, 2))
    assert round(body["previousPriceEur"] * 100) == paid.amount_cents < new_price
    assert round(body["differenceEur"] * 100) == new_price - paid.amount_cents
    assert (body["settlement"], round(body["settledEur"] * 100)) == ("pay", new_price - paid.amount_cents)
    paid.refresh_from_db()
    assert (paid.pickup_at, paid.vehicle_class, paid.amount_cents, paid.updated_at) == before
    assert not Surcharge.objects.exists() and not paid.history.filter(kind="change").exists()


def test_a_cheaper_class_is_refunded_to_the_payment_with_a_credit_note(
    client, agent, paid, stripe, mailoutbox
):
    body = quote(client, paid, {"vehicleClass": "executive"}, **agent).json()
    assert body["settlement"] == "refund"
    refund_cents = round(body["settledEur"] * 100)

    answer = make(client, paid, body["id"], **agent)

    assert answer.status_code == 200, answer.content
    made = answer.json()
    assert (made["settlement"], made["paymentUrl"]) == ("refund", None)
    assert made["booking"]["vehicleClass"] == "executive" and made["booking"]["reference"] == paid.reference
    (refund,) = Refund.objects.all()
    assert (refund.amount_cents, refund.method, refund.status) == (refund_cents, "provider", "succeeded")
    assert sum(stripe.refunded.values()) == refund_cents
    (note,) = CreditNote.objects.all()
    assert note.gross_cents == refund_cents and note.invoice == Invoice.objects.get(booking=paid)
    assert document_balance.balance(Booking.objects.get(pk=paid.pk)).adds_up
    (changed,) = paid.history.filter(kind="change")
    assert changed.actor.endswith("(REST API)") and "API token" in changed.actor


def test_a_dearer_change_answers_its_payment_link(client, agent, paid, stripe):
    body = quote(client, paid, {"vehicleClass": "first"}, **agent).json()

    made = make(client, paid, body["id"], **agent).json()

    (link,) = Surcharge.objects.filter(status="pending")
    assert made["settlement"] == "pay" and made["paymentUrl"] == link.payment_url is not None
    assert link.amount_cents == round(body["settledEur"] * 100)
    assert Booking.objects.get(pk=paid.pk).amount_cents == round(body["price"]["priceEur"] * 100)


def test_a_quote_is_made_once(client, agent, paid):
    body = quote(client, paid, {"pickupDatetime": later(paid, 1)}, **agent).json()
    assert make(client, paid, body["id"], **agent).status_code == 200
    moved = Booking.objects.get(pk=paid.pk).pickup_at

    again = make(client, paid, body["id"], **agent)

    assert_problem(again, 409, "stale_change_quote")
    assert Booking.objects.get(pk=paid.pk).pickup_at == moved
    assert paid.history.filter(kind="change").count() == 1


def test_a_quote_goes_stale_when_the_booking_changes_or_time_passes(client, agent, paid):
    first = quote(client, paid, {"pickupDatetime": later(paid, 1)}, **agent).json()
    second = quote(client, paid, {"pickupDatetime": later(paid, 3)}, **agent).json()
    assert make(client, paid, second["id"], **agent).status_code == 200

    assert_problem(make(client, paid, first["id"], **agent), 409, "stale_change_quote")
    third = quote(client, paid, {"vehicleClass": "first"}, **agent).json()
    with time_machine.travel(timezone.now() + timedelta(minutes=11)):
        assert_problem(make(client, paid, third["id"], **agent), 409, "stale_change_quote")
    assert Booking.objects.get(pk=paid.pk).vehicle_class == "business-van"
    assert not ChangeQuote.objects.filter(public_id=third["id"], applied_at__isnull=False).exists()


@pytest.mark.parametrize(
    ("change", "status", "code"),
    [
        ({"pickupDatetime": "NOW"}, 400, "lead_time"),
        ({}, 400, "invalid_request"),
        ({"vehicleClass": "bus"}, 400, "invalid_request"),
    ],
    ids=["into the lead time", "nothing", "an unknown class"],
)
def test_a_change_the_rules_refuse_is_refused_and_nothing_kept(client, agent, paid, change, status, code):
    if change.get("pickupDatetime") == "NOW":
        change = {"pickupDatetime": (timezone.localtime() + timedelta(minutes=30)).isoformat()}
    assert_problem(quote(client, paid, change, **agent), status, code)
    assert not ChangeQuote.objects.exists()


def test_nothing_changes_once_the_chauffeur_has_set_off(client, agent, paid):
    body = quote(client, paid, {"pickupDatetime": later(paid, 1)}, **agent).json()
    RideStep.objects.create(booking=paid, state=RideState.ON_THE_WAY, at=timezone.now(), actor="chauffeur")

    assert_problem(quote(client, paid, {"pickupDatetime": later(paid, 2)}, **agent), 409, "not_changeable")
    assert_problem(make(client, paid, body["id"], **agent), 409, "stale_change_quote")
    assert Booking.objects.get(pk=paid.pk).pickup_at == paid.pickup_at


def test_another_token_or_traveller_cannot_change_the_booking(client, paid):
    stranger = bearer("booking.read", "booking.write")
    assert_problem(quote(client, paid, {"vehicleClass": "first"}, **stranger), 404, "not_found")
    reader = bearer("booking.read")
    assert quote(client, paid, {"vehicleClass": "first"}, **reader).status_code == 403
    # the customer's own address opens it, as for cancelling
    by_mail = quote(client, paid, {"vehicleClass": "first", "email": "anna@example.com"})
    assert by_mail.status_code == 201, by_mail.content
    assert ChangeQuote.objects.count() == 1


def test_an_agent_changes_the_booking_through_mcp_as_through_rest(client, agent, paid, stripe):
    body, made = through_mcp(
        client, agent, paid, {"vehicleClass": "executive", "pickupDatetime": later(paid, 1)}
    )

    assert (body["settlement"], body["vehicleClass"]) == ("refund", "executive")
    assert made["booking"]["vehicleClass"] == "executive"
    assert sum(stripe.refunded.values()) == round(body["settledEur"] * 100)
    (changed,) = paid.history.filter(kind="change")
    assert changed.actor.endswith("(MCP)")
    stale = tool_problem(
        call(
            client, agent, "booking.change_booking", {"reference": paid.reference, "changeQuoteId": "cq_nope"}
        )
    )
    assert stale["code"] == "stale_change_quote"


def test_the_class_stays_while_a_car_is_assigned_and_the_refusal_is_the_apis(client, agent, paid):
    van = VehicleClass.objects.get(code="business-van")
    car = Vehicle.objects.create(plate="W-4711X", vehicle_class=van, seats=6, luggage=6)
    Booking.objects.filter(pk=paid.pk).update(vehicle=car)

    refused = quote(client, paid, {"vehicleClass": "first"}, **agent)

    body = assert_problem(refused, 409, "not_changeable")
    assert "W-4711X" in body["detail"]
    assert not ChangeQuote.objects.exists()
    assert (
        quote(client, paid, {"pickupDatetime": later(paid, 1)}, **agent).status_code == 201
    )  # its pickup may move


@pytest.mark.parametrize("hours", [-3, 1], ids=["driven three hours ago", "an hour before its pickup"])
def test_a_ride_past_or_about_to_start_keeps_its_class_and_its_money(client, agent, paid, stripe, hours):
    Booking.objects.filter(pk=paid.pk).update(pickup_at=timezone.now() + timedelta(hours=hours))

    refused = quote(client, paid, {"vehicleClass": "executive"}, **agent)

    assert_problem(refused, 409, "not_changeable")
    assert not ChangeQuote.objects.exists() and not Refund.objects.exists() and stripe.refunded == {}


def test_a_new_pickup_in_the_past_is_the_lead_times_refusal(client, agent, paid):
    refused = quote(client, paid, {"pickupDatetime": "2000-01-01T00:00:00-12:00"}, **agent)

    body = assert_problem(refused, 400, "lead_time", "pickupDatetime")
    assert "earliestPickup" in body and not ChangeQuote.objects.exists()


def test_a_new_destination_is_routed_and_priced_again_and_made_on_the_route_quoted(
    client, agent, paid, stripe
):
    before = (paid.destination, paid.distance_km, paid.amount_cents)
    body = quote(client, paid, {"to": "Linz Airport"}, **agent).json()

    assert body["to"] == "Linz Airport" and body["from"] == paid.origin
    assert body["distanceKm"] > float(paid.distance_km) and body["settlement"] == "pay"
    paid.refresh_from_db()
    assert (paid.destination, paid.distance_km, paid.amount_cents) == before  # a quote changes nothing

    made = make(client, paid, body["id"], **agent)

    assert made.status_code == 200, made.content
    moved = Booking.objects.get(pk=paid.pk)
    assert (moved.destination, float(moved.distance_km)) == ("Linz Airport", body["distanceKm"])
    assert moved.amount_cents == round(body["price"]["priceEur"] * 100)
    assert moved.duration_s > paid.duration_s and moved.austria_share is None  # all in Austria still
    assert moved.estimated_arrival == moved.pickup_at + timedelta(seconds=moved.duration_s)
    (changed,) = moved.history.filter(kind="change")
    assert "destination Flughafen Wien → Linz Airport" in changed.text
    assert made.json()["booking"]["to"] == "Linz Airport"


def priced_by_hand(booking: Booking) -> None:
    quote = with_price_by_hand(booking.quote, PriceByHand(Decimal("90.00"), "a regular customer"))
    Booking.objects.filter(pk=booking.pk).update(quote_record=quote.as_record(), amount_cents=9000)


@pytest.mark.parametrize(
    ("prepare", "change", "field"),
    [
        # across the border: the paid ride's invoice splits its VAT by the share in Austria
        (lambda booking: None, {"to": "Bratislava Airport"}, "to"),
        (
            lambda booking: Booking.objects.filter(pk=booking.pk).update(flight_number="OS 123"),
            {"from": "Wien Hauptbahnhof"},
            "from",
        ),
        (priced_by_hand, {"to": "Linz Airport"}, "to"),
    ],
    ids=["crossing the border", "meeting a flight", "priced by hand"],
)
def test_addresses_staff_agreed_otherwise_are_staffs_to_change(
    client, agent, paid, stripe, prepare, change, field
):
    prepare(paid)
    before = Booking.objects.get(pk=paid.pk)

    refused = quote(client, paid, change, **agent)

    assert_problem(refused, 409, "not_changeable", field)
    after = Booking.objects.get(pk=paid.pk)
    assert (after.origin, after.destination, after.amount_cents) == (
        before.origin,
        before.destination,
        before.amount_cents,
    )
    assert not ChangeQuote.objects.exists()


def test_the_same_address_is_no_change_and_a_ride_to_where_it_starts_is_refused(client, agent, paid):
    same = quote(client, paid, {"to": "  flughafen   WIEN "}, **agent)
    assert_problem(same, 400, "invalid_request")
    nowhere = quote(client, paid, {"to": paid.origin.upper()}, **agent)
    assert_problem(nowhere, 400, "invalid_request", "to")
    assert not ChangeQuote.objects.exists()


def test_a_longer_ride_that_would_run_into_the_chauffeurs_next_is_refused(
    client, agent, paid, fleet, make_booking
):
    assign(paid, fleet["karl"], fleet["van"])
    paid.refresh_from_db()
    next_ride = make_booking(
        status="paid",
        paid_at=timezone.now(),
        duration_s=1455,
        pickup_at=paid.estimated_arrival + timedelta(minutes=45),
    )
    assign(next_ride, fleet["karl"], fleet["sedan"])

    refused = quote(client, paid, {"to": "Linz Airport"}, **agent)

    assert_problem(refused, 409, "not_changeable")
    assert "Karl Huber" in refused.json()["detail"]
    assert Booking.objects.get(pk=paid.pk).destination == paid.destination


def test_more_passengers_than_the_class_seats_are_refused_and_fewer_are_recorded(client, agent, paid):
    too_many = quote(client, paid, {"passengers": 8}, **agent)
    assert_problem(too_many, 400, "vehicle_too_small", "passengers")
    assert not ChangeQuote.objects.exists()

    body = quote(client, paid, {"passengers": 3, "luggage": 2}, **agent).json()
    assert (body["passengers"], body["luggage"], body["settlement"]) == (3, 2, "none")
    assert make(client, paid, body["id"], **agent).status_code == 200
    moved = Booking.objects.get(pk=paid.pk)
    assert (moved.passengers, moved.luggage, moved.amount_cents) == (3, 2, paid.amount_cents)


def test_an_hourly_hires_addresses_are_staffs_to_change(client, agent, stripe):
    data = ride(bookingType="hourly", durationHours=3, vehicleClass="business-van")
    answer = post(
        client, "/api/v1/checkout", {"amount": server_amount(client, data), "bookingData": data}, **agent
    )
    assert answer.status_code == 201, answer.content
    hire = Booking.objects.get(reference=answer.json()["reference"])

    refused = quote(client, hire, {"from": "Wien Hauptbahnhof"}, **agent)

    assert_problem(refused, 409, "not_changeable")
    assert not ChangeQuote.objects.exists() and Booking.objects.get(pk=hire.pk).origin == hire.origin


def test_an_agent_changes_the_address_through_mcp(client, agent, paid, stripe):
    through_mcp(client, agent, paid, {"from": "Wien Hauptbahnhof"})

    assert Booking.objects.get(pk=paid.pk).origin == "Wien Hauptbahnhof"
