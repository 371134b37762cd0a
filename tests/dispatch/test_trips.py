"""Passengers, luggage and extras through every door that books: the extras' list, the price, the checkout
(REST and MCP), the booking's answer, the invoice, the chauffeur's job page, staff's change and the
assignment, and every refusal storing nothing."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core import mail
from django.utils import timezone

from apikit.errors import DomainError
from booking.models import Booking
from dispatch import changes
from dispatch.admin.forms import AssignForm
from fleet.models import VehicleEquipment
from invoicing.documents import for_booking
from pricing.models import Extra
from pricing.services import TARIFFS
from tests.booking.test_checkout import post
from tests.booking.test_checkout import ride as ride_data
from tests.conftest import assert_problem
from tests.dispatch.conftest import assign
from tests.mcp_endpoint.mcp import call, checkout_arguments, output_validator, tool_problem, tool_result
from tests.payments.sandbox import pay_in_the_sandbox
from web.booking_page import resume_choices

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]

TRIP = {"passengers": 3, "luggage": 2, "extras": ["child-seat:2", "name-sign"]}


def priced(client, data: dict) -> dict:
    """What a client does: route, then the price with the trip's passengers, luggage and extras."""
    route = client.get("/api/v1/distance", {"from": data["from"], "to": data["to"]}).json()
    params = {"vehicleClass": data["vehicleClass"], "distanceKm": route["distance"], "inZoneA": "true"}
    params.update({key: data[key] for key in ("passengers", "luggage") if data.get(key) is not None})
    if data.get("extras"):
        params["extras"] = ",".join(data["extras"])
    response = client.get("/api/v1/price", params)
    assert response.status_code == 200, response.content
    return response.json()


def book(client, agent, **trip) -> Booking:
    data = {key: value for key, value in ride_data(**{**TRIP, **trip}).items() if value is not None}
    amount = round(priced(client, data)["priceEur"] * 100)
    response = post(client, "/api/v1/checkout", {"amount": amount, "bookingData": data}, **agent)
    assert response.status_code == 201, response.content
    return Booking.objects.get(reference=response.json()["reference"])


def test_the_extras_are_listed_with_their_prices_and_maxima(client):
    response = client.get("/api/v1/extras")
    assert response.status_code == 200
    extras = {extra["code"]: extra for extra in response.json()["extras"]}
    assert list(extras) == ["infant-carrier", "child-seat", "booster-seat", "name-sign", "bulky-luggage"]
    assert extras["child-seat"] == {
        "code": "child-seat",
        "names": {"en": "Child seat", "de": "Kindersitz"},
        "priceEur": 10.0,
        "per": "piece",
        "childSeat": "child_seat",
        "maxima": {"executive": 2, "first": 2, "business-van": 3},
    }
    assert (extras["name-sign"]["per"], extras["name-sign"]["childSeat"]) == ("booking", None)
    Extra.objects.filter(code="name-sign").update(active=False)
    TARIFFS.bump()  # as the admin's save does
    assert "name-sign" not in {extra["code"] for extra in client.get("/api/v1/extras").json()["extras"]}


def test_the_price_names_each_extra_in_a_line_of_its_own(client):
    price = priced(client, ride_data(**TRIP))
    plain = priced(client, ride_data())
    assert price["priceEur"] == plain["priceEur"] + 35.0
    assert [(line["code"], line["label"], line["amountEur"]) for line in price["lines"][-2:]] == [
        ("extra", "Child seat × 2", 20.0),
        ("extra", "Name sign at arrivals", 15.0),
    ]
    assert sum(line["amountEur"] for line in price["lines"]) == pytest.approx(price["priceEur"])


@pytest.mark.parametrize(
    ("params", "status", "code", "field"),
    [
        ({"extras": "champagne"}, 400, "unknown_extra", "extras"),
        ({"extras": "child-seat:3"}, 400, "too_many_extras", "extras"),
        ({"extras": "child-seat:2,booster-seat", "passengers": 2}, 400, "too_many_extras", "extras"),
        ({"passengers": 4}, 400, "vehicle_too_small", "passengers"),
        ({"extras": "child-seat,child-seat:2"}, 400, "too_many_extras", "extras"),  # named twice: 3
        ({"extras": "child seat"}, 400, "invalid_request", "extras.0"),
        ({"passengers": 0}, 400, "invalid_request", "passengers"),
    ],
)
def test_a_price_with_a_trip_the_class_cannot_take_is_a_problem(client, params, status, code, field):
    response = client.get("/api/v1/price", {"vehicleClass": "executive", "distanceKm": "20", **params})
    problem = assert_problem(response, status, code)
    if code == "invalid_request":
        assert field in problem["errors"]
    if code == "vehicle_too_small":
        assert problem["fittingClasses"] == ["business-van"]


def test_a_checkout_with_a_trip_stores_it_and_the_answers_show_it(client, agent):
    booking = book(client, agent)
    assert (booking.passengers, booking.luggage) == (3, 2)
    assert [(extra.code, extra.quantity) for extra in booking.quote.extras] == [
        ("child-seat", 2),
        ("name-sign", 1),
    ]
    assert booking.booking_data["extras"] == ["child-seat:2", "name-sign"]
    answer = client.get(f"/api/v1/bookings/{booking.reference}", **agent).json()
    assert (answer["passengers"], answer["luggage"]) == (3, 2), answer
    assert answer["extras"] == [
        {"code": "child-seat", "name": "Child seat", "quantity": 2, "amountEur": 20.0},
        {"code": "name-sign", "name": "Name sign at arrivals", "quantity": 1, "amountEur": 15.0},
    ]


def test_a_booking_without_a_trip_answers_as_before_with_empty_members(client, agent):
    booking = book(client, agent, passengers=None, luggage=None, extras=None)
    answer = client.get(f"/api/v1/bookings/{booking.reference}", **agent).json()
    assert (answer["passengers"], answer["luggage"], answer["extras"]) == (None, None, [])


@pytest.mark.parametrize(
    ("trip", "code"),
    [
        ({"extras": ["unicorn"]}, "unknown_extra"),
        ({"passengers": 1, "extras": ["child-seat", "infant-carrier"]}, "too_many_extras"),
        ({"passengers": 5}, "vehicle_too_small"),
        ({"luggage": 8, "vehicleClass": "business-van"}, "vehicle_too_small"),
    ],
)
def test_a_checkout_the_class_cannot_take_stores_nothing(client, agent, trip, code):
    data = ride_data(**trip)
    response = post(client, "/api/v1/checkout", {"amount": 9900, "bookingData": data}, **agent)
    problem = assert_problem(response, 400, code)
    assert problem["hint"]
    assert Booking.objects.count() == 0


def test_the_legacy_checkout_takes_no_trip_and_answers_as_before(client):
    data = ride_data(extras=["child-seat"], passengers=9)
    route = client.get("/api/v1/distance", {"from": data["from"], "to": data["to"]}).json()
    plain = client.get("/api/v1/price", {"vehicleClass": "executive", "distanceKm": route["distance"]}).json()
    response = post(
        client,
        "/api/create-checkout-session",
        {"amount": round(plain["priceEur"] * 100), "bookingData": data},
    )
    assert response.status_code == 200, response.content
    booking = Booking.objects.get()
    assert (booking.passengers, booking.quote.extras) == (None, ())


def test_an_agent_lists_the_extras_and_books_them_through_mcp(client, agent):
    listed = tool_result(call(client, agent, "booking.list_extras", {}))
    output_validator(client, agent, "booking.list_extras").validate(listed["structuredContent"])
    assert listed["structuredContent"] == client.get("/api/v1/extras").json()
    arguments = checkout_arguments(client, agent, passengers=2, luggage=3, extras=["booster-seat"])
    result = tool_result(call(client, agent, "booking.create_checkout", arguments))
    assert result["isError"] is False, result
    reference = result["structuredContent"]["reference"]
    state = tool_result(call(client, agent, "booking.get_booking", {"reference": reference}))
    output_validator(client, agent, "booking.get_booking").validate(state["structuredContent"])
    assert state["structuredContent"]["extras"] == [
        {"code": "booster-seat", "name": "Booster seat", "quantity": 1, "amountEur": 5.0}
    ]
    refused = checkout_arguments(client, agent)
    refused["bookingData"]["extras"] = ["child-seat:10"]
    problem = tool_problem(call(client, agent, "booking.create_checkout", refused))
    assert problem["code"] == "invalid_request" and "bookingData.extras.0" in problem["errors"]
    assert Booking.objects.count() == 1


def test_the_invoice_and_the_job_page_name_the_extras(
    client, agent, fleet, django_capture_on_commit_callbacks
):
    booking = book(client, agent)  # German: the ride's locale
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        pay_in_the_sandbox(booking)
    (confirmation,) = [message for message in mail.outbox if message.to == ["anna@example.com"]]
    assert "Kindersitz × 2" in confirmation.body and "Namensschild bei der Ankunft" in confirmation.body
    labels = [line["label"] for line in for_booking(booking).content["lines"]]
    assert labels[-2:] == ["Kindersitz × 2", "Namensschild bei der Ankunft"]
    van = fleet["van"]
    VehicleEquipment.objects.create(vehicle=van, extra=Extra.objects.get(code="child-seat"), quantity=2)
    booking.refresh_from_db()
    booking.vehicle_class = "business-van"  # the van carries the seats
    booking.save(update_fields=["vehicle_class"])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assign(booking, fleet["karl"], van)
    (job,) = [message for message in mail.outbox if message.to == [fleet["karl"].email]]
    assert "Personen:   3, Gepäck: 2\nMitbringen: Kindersitz × 2, Namensschild bei der Ankunft\n" in job.body
    ((_name, entry, _type),) = job.attachments
    assert "Mitbringen: Kindersitz × 2\\, Namensschild bei der Ankunft" in entry.replace("\r\n ", "")
    path = re.search(r"https://chauffeur\.test(/chauffeur/job/[\w.-]+/)", job.body)[1]
    page = client.get(path).content.decode()
    assert re.search(r'<dd id="extras">.*Kindersitz × 2.*Namensschild bei der Ankunft', page, re.S)
    assert "3 Fahrgäste · 2 Gepäckstücke" in page


def test_a_vehicle_without_the_booked_child_seats_or_room_is_refused(client, agent, fleet):
    booking = book(client, agent)
    pay_in_the_sandbox(booking)
    sedan = fleet["sedan"]
    with pytest.raises(DomainError) as refused:
        assign(booking, fleet["karl"], sedan)
    assert refused.value.code == "not_equipped"
    assert "carries 0 × Child seat; " in refused.value.detail
    VehicleEquipment.objects.create(vehicle=sedan, extra=Extra.objects.get(code="child-seat"), quantity=1)
    with pytest.raises(DomainError):
        assign(booking, fleet["karl"], sedan)
    booking.refresh_from_db()
    assert (booking.driver, booking.vehicle, booking.status) == (None, None, "paid")  # nothing changed
    VehicleEquipment.objects.filter(vehicle=sedan).update(quantity=2)
    sedan.seats = 2
    sedan.save()
    with pytest.raises(DomainError) as refused:
        assign(booking, fleet["karl"], sedan)
    assert (refused.value.code, refused.value.detail) == (
        "vehicle_too_small",
        f"W-1000A (E-Class) seats 2 passengers; {booking.reference} has 3.",
    )
    sedan.seats = 3
    sedan.save()
    assert assign(booking, fleet["karl"], sedan).status == "confirmed"


def test_staff_change_keeps_the_trip_and_refuses_a_class_too_small(client, agent):
    booking = book(client, agent, passengers=2, extras=["child-seat"])
    pay_in_the_sandbox(booking)
    later = booking.pickup_at + timedelta(hours=2)
    changed = changes.change_ride(
        booking.pk, pickup=later, vehicle_class="first", through_provider=False, actor="eva (staff)"
    ).booking
    assert changed.quote.extras == booking.quote.extras and changed.passengers == 2
    big = book(client, agent, passengers=3, luggage=3, extras=None)
    pay_in_the_sandbox(big)
    before = Booking.objects.get(pk=big.pk).quote_record
    with pytest.raises(DomainError) as refused:
        changes.change_ride(
            big.pk, pickup=big.pickup_at, vehicle_class="first", through_provider=False, actor="eva (staff)"
        )
    assert (refused.value.code, refused.value.field) == ("vehicle_too_small", "luggage")
    assert Booking.objects.get(pk=big.pk).quote_record == before
    assert timezone.now()  # the clock is real: the changes above ran inside the lead time's rules


def test_an_extra_withdrawn_after_booking_stays_on_the_ride_at_its_booked_price(client, agent):
    booking = book(client, agent, extras=["name-sign"])
    pay_in_the_sandbox(booking)
    Extra.objects.filter(code="name-sign").update(active=False, price="25.00")
    TARIFFS.bump()
    later = booking.pickup_at + timedelta(hours=1)
    changed = changes.change_ride(
        booking.pk, pickup=later, vehicle_class="executive", through_provider=False, actor="eva (staff)"
    ).booking
    assert [(line.params["code"], line.amount) for line in changed.quote.extra_lines] == [
        ("name-sign", Decimal("15.00"))
    ]
    assert changed.amount_cents == booking.amount_cents  # nothing to charge or refund
    price = client.get(
        "/api/v1/price", {"vehicleClass": "executive", "distanceKm": "20", "extras": "name-sign"}
    )
    assert_problem(price, 400, "unknown_extra")  # but nobody can book it any more


def test_the_booking_page_comes_back_with_the_trip_after_a_cancelled_payment(client, agent):
    booking = book(client, agent)
    choices = resume_choices(booking)
    assert (choices["passengers"], choices["luggage"]) == ("3", "2")
    assert (choices["extra-child-seat"], choices["extra-name-sign"]) == ("2", "1")
    assert "extra-booster-seat" not in choices


def test_the_assign_form_names_the_cars_without_the_booked_child_seats(client, agent, fleet):
    booking = book(client, agent)
    pay_in_the_sandbox(booking)

    def labels() -> list[str]:
        vehicles = AssignForm(booking=booking).fields["vehicle"]
        return [label for _pk, label in vehicles.choices][1:]

    assert labels() == [
        "W-1000A (E-Class) (without the booked Child seat × 2)",
        "W-2000B (E-Class) (without the booked Child seat × 2)",
    ]
    VehicleEquipment.objects.create(
        vehicle=fleet["sedan"], extra=Extra.objects.get(code="child-seat"), quantity=2
    )
    assert labels() == ["W-1000A (E-Class)", "W-2000B (E-Class) (without the booked Child seat × 2)"]


def test_the_dispatch_board_shows_what_the_car_must_bring(client, agent, admin_client):
    booking = book(client, agent)
    pay_in_the_sandbox(booking)
    board = admin_client.get("/admin/booking/booking/dispatch/", {"range": "next7"}).content.decode()
    card = board[board.index(f'id="ride-{booking.pk}"') :].split("</a>")[0]
    assert '<span class="extras">Child seat × 2, Name sign at arrivals</span>' in card
