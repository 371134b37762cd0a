"""booking.list_bookings and GET /api/v1/bookings (booking/listing.py): a traveller's token lists that
traveller's bookings, any other token those it (or its OAuth grant) booked; today's and later rides soonest
first, earlier ones latest first, a page at a time; each item is get_booking's answer; the tool's result is
the v1 answer; a page costs the same few queries however many bookings it holds."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from booking.models import Booking, BookingStatus, PaymentMethod, RideState, RideStep
from fleet.models import Driver, Vehicle
from payments.models import Refund, RefundStatus
from pricing.models import VehicleClass
from tests.booking.test_checkout import ride, server_amount
from tests.booking.travellers import access_token, grant, stored_booking
from tests.conftest import assert_problem, bearer
from tests.mcp_endpoint.mcp import call, output_validator, result_of, rpc, tool_problem, tool_result
from tests.payments import ledger_rows

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]

LIST = "/api/v1/bookings"
ANNA, EVE = "anna@example.com", "eve@example.com"


def days(n: float):
    return timezone.now() + timedelta(days=n)


def references(answer: dict) -> list[str]:
    return [item["reference"] for item in answer["bookings"]]


def listed(client, headers: dict, **query) -> dict:
    """The v1 answer, and the tool's: they must be the same."""
    response = client.get(LIST, query, **headers)
    assert response.status_code == 200, response.content
    result = tool_result(call(client, headers, "booking.list_bookings", query))
    assert result["isError"] is False, result
    assert result["structuredContent"] == response.json()
    return response.json()


# --- whose bookings ---------------------------------------------------------------------------------


def test_a_travellers_token_lists_their_bookings_and_nobody_elses(client):
    mine = [stored_booking("Anna@Example.com", pickup=days(2)), stored_booking(ANNA, pickup=days(5))]
    stored_booking(EVE, pickup=days(3))
    stored_booking("anna@example.org", pickup=days(4))
    stored_booking(EVE, pickup=days(1), token=access_token(ANNA)[0])  # not Anna's, whoever booked it
    _, anna = access_token(ANNA, scopes=("booking.read",))
    answer = listed(client, anna)
    assert references(answer) == [booking.reference for booking in mine]
    assert answer["nextCursor"] is None
    single = client.get(f"{LIST}/{mine[0].reference}", **anna).json()
    assert answer["bookings"][0] == single  # each item is get_booking's answer
    output_validator(client, anna, "booking.list_bookings").validate(answer)


def test_an_agency_token_lists_what_it_and_its_grant_booked(client):
    agency = grant()
    earlier, _ = access_token(of=agency)
    current, headers = access_token(of=agency)
    ours = [
        stored_booking(EVE, pickup=days(1), token=earlier),
        stored_booking(ANNA, pickup=days(2), token=current),
    ]
    stored_booking(EVE, pickup=days(3), token=access_token(of=grant(client=agency.client))[0])
    stored_booking(ANNA, pickup=days(4))  # Anna's, but not booked through this grant
    assert references(listed(client, headers)) == [booking.reference for booking in ours]


def test_a_static_token_lists_what_it_booked(client):
    static = bearer("booking.read", "booking.write")
    booked = client.post(
        "/api/v1/checkout", checkout_body(client), content_type="application/json", **static
    ).json()["reference"]
    stored_booking(ANNA, pickup=days(2), token=access_token()[0])  # another token's
    stored_booking(ANNA, pickup=days(2))  # the website's
    assert references(listed(client, static)) == [booked]
    assert references(listed(client, bearer("booking.read"))) == []


def checkout_body(client) -> dict:
    data = ride()
    return {"amount": server_amount(client, data), "bookingData": data}


# --- which, in which order ----------------------------------------------------------------------------


def test_upcoming_rides_come_soonest_first_and_past_ones_latest_first(client):
    _, anna = access_token(ANNA)
    last_week = stored_booking(ANNA, pickup=days(-7), status=BookingStatus.COMPLETED)
    yesterday = stored_booking(ANNA, pickup=days(-1), status=BookingStatus.COMPLETED)
    under_way = stored_booking(ANNA, pickup=timezone.localtime().replace(hour=0, minute=1))  # today
    tomorrow = stored_booking(ANNA, pickup=days(1))
    next_month = stored_booking(ANNA, pickup=days(30), status=BookingStatus.CANCELLED)
    unscheduled = stored_booking(ANNA, pickup_at=None)  # a checkout without a pickup time (v1 allows it)
    if timezone.localtime(yesterday.pickup_at).date() == timezone.localdate():  # not yet a day ago
        yesterday.pickup_at -= timedelta(days=1)
        yesterday.save()
    upcoming = [under_way, tomorrow, next_month, unscheduled]
    assert references(listed(client, anna)) == [booking.reference for booking in upcoming]
    assert references(listed(client, anna, when="upcoming")) == [booking.reference for booking in upcoming]
    assert references(listed(client, anna, when="past")) == [yesterday.reference, last_week.reference]
    everything = [next_month, tomorrow, under_way, yesterday, last_week, unscheduled]
    assert references(listed(client, anna, when="all")) == [booking.reference for booking in everything]


@pytest.mark.parametrize("when", ["upcoming", "past", "all"])
def test_pages_follow_the_cursor_without_repeating_or_missing_one(client, when):
    _, anna = access_token(ANNA)
    same_time = days(-3 if when == "past" else 3)
    for offset in (-10, -2, 2, 10):
        stored_booking(ANNA, pickup=days(offset))
    for _ in range(3):  # a tie on the pickup time: the id decides
        stored_booking(ANNA, pickup=same_time)
    if when != "past":
        stored_booking(ANNA, pickup_at=None)
        stored_booking(ANNA, pickup_at=None)
    whole = references(listed(client, anna, when=when, limit=50))
    seen, cursor, pages = [], None, 0
    while True:
        query = {"when": when, "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = listed(client, anna, **query)
        pages += 1
        assert len(page["bookings"]) <= 2
        seen += references(page)
        if pages == 1:  # a booking made meanwhile, before the cursor: it does not push one onto page two
            stored_booking(ANNA, pickup=days({"upcoming": 2.5, "past": -2.5, "all": 40}[when]))
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert seen == whole and len(set(seen)) == len(seen)
    assert pages == (len(whole) + 1) // 2


# --- refusals -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"limit": "0"}, "limit"),
        ({"limit": "51"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"when": "tomorrow"}, "when"),
        ({"cursor": "CB-7K3Q9X"}, "cursor"),
        ({"cursor": "123456789012345678_1"}, "cursor"),  # beyond any pickup: refused by its form
        ({"cursor": "1795683600000000_42\n"}, "cursor"),
        ({"cursor": " x_1"}, "cursor"),
    ],
)
def test_bad_parameters_are_refused_naming_them(client, query, field):
    _, anna = access_token(ANNA)
    assert_problem(client.get(LIST, query, **anna), 400, "invalid_request", field)
    arguments = {name: int(value) if value.isdigit() else value for name, value in query.items()}
    problem = tool_problem(call(client, anna, "booking.list_bookings", arguments))
    assert problem["code"] == "invalid_request" and field in problem["errors"]


def test_listing_needs_a_token_with_booking_read(client):
    stored_booking(ANNA)
    response = client.get(LIST, {"email": ANNA})  # an e-mail address lists nothing
    assert_problem(response, 401, "unauthorized")
    assert_problem(client.get(LIST, **bearer("booking.write")), 403, "insufficient_scope")
    _, writer = access_token(ANNA, scopes=("booking.write",))
    data = rpc(client, writer, "tools/call", {"name": "booking.list_bookings", "arguments": {}}, request_id=4)
    assert data.status_code == 403 and data.json()["error"]["data"]["requiredScope"] == "booking.read"


def test_the_tool_is_listed_read_only_and_under_its_underscore_name(client):
    _, anna = access_token(ANNA)
    tools = {tool["name"]: tool for tool in result_of(rpc(client, anna, "tools/list"))["tools"]}
    listing = tools["booking.list_bookings"]
    assert listing["_meta"]["requiredScope"] == "booking.read"
    assert (
        listing["annotations"]["readOnlyHint"] is True and listing["annotations"]["destructiveHint"] is False
    )
    assert "required" not in listing["inputSchema"]  # every argument is optional
    underscore = client.post(
        "/api/mcp?toolNames=underscore",
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
        content_type="application/json",
        **anna,
    )
    assert "booking_list_bookings" in [tool["name"] for tool in result_of(underscore)["tools"]]
    stored_booking(ANNA)
    aliased = tool_result(call(client, anna, "booking_list_bookings", {}))
    assert len(aliased["structuredContent"]["bookings"]) == 1


# --- cost ---------------------------------------------------------------------------------------------


def test_a_page_costs_the_same_few_queries_however_many_bookings_it_shows(
    client, django_assert_max_num_queries
):
    """Each item needs the driver, the car, the refunds, the ride's steps, an account booking's invoice
    line and the cancellation policy: selected or prefetched once for the page, not once per booking."""
    _, anna = access_token(ANNA)
    executive = VehicleClass.objects.get(code="executive")
    karl = Driver.objects.create(name="Karl Huber", phone="+43 660 1112223")

    def rich(n: int) -> None:
        for index in range(n):
            car = Vehicle.objects.create(
                plate=f"W-{Booking.objects.count()}A", model="E", seats=3, luggage=3, vehicle_class=executive
            )
            booking = stored_booking(
                ANNA,
                pickup=days(1 + index),
                status=BookingStatus.CONFIRMED,
                driver=karl,
                vehicle=car,
                paid_at=timezone.now(),
                payment_method=PaymentMethod.ACCOUNT if index % 2 else PaymentMethod.CHECKOUT,
            )
            ledger_rows.received(booking, 7400)
            Refund.objects.create(booking=booking, amount_cents=100, status=RefundStatus.SUCCEEDED)
            RideStep.objects.create(
                booking=booking, state=RideState.ACCEPTED, at=timezone.now(), actor="karl"
            )

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(LIST, {"limit": 50}, **anna).status_code == 200
        return len(captured)

    rich(2)
    few = queries()
    rich(18)
    with django_assert_max_num_queries(few):
        answer = client.get(LIST, {"limit": 50}, **anna).json()
    assert len(answer["bookings"]) == 20
    assert answer["bookings"][0]["driver"]["name"] == "Karl Huber"
    assert (
        answer["bookings"][0]["refundedEur"] == 1.0 and answer["bookings"][0]["ride"]["state"] == "accepted"
    )
    assert few <= 8, few  # the token, the page, its refunds and ride steps, the policy
