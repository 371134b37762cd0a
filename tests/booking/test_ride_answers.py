"""The ride's day in the booking's answers: GET /api/v1/bookings/{reference} and MCP
booking.get_booking follow each move the chauffeur makes (dispatch/ride_day.py) with `ride` (its state and
the time of each move) and show the car once the booking is confirmed; both answers match their published
schemas (/openapi.json, the tool's outputSchema). The legacy session answer is left as it was."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from jsonschema import Draft202012Validator, FormatChecker

from booking.models import RideState
from dispatch import ride_day
from dispatch.models import RideDayPolicy
from tests.dispatch.conftest import assign, fleet, ride  # noqa: F401 (fixtures)
from tests.mcp_endpoint.mcp import call, output_validator, tool_result

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]

TIMES = {
    RideState.ACCEPTED: "acceptedAt",
    RideState.ON_THE_WAY: "onTheWayAt",
    RideState.ARRIVED: "arrivedAt",
    RideState.ON_BOARD: "onBoardAt",
    RideState.COMPLETED: "completedAt",
    RideState.NO_SHOW: "noShowAt",
}
NOTHING_YET = {"state": None, **dict.fromkeys(TIMES.values())}


@pytest.fixture
def assigned(fleet, ride):  # noqa: F811
    booking = ride(pickup=(timezone.now() + timedelta(hours=2)).replace(microsecond=0))
    assign(booking, fleet["karl"], fleet["sedan"])
    booking.refresh_from_db()
    return booking


def openapi_validator(client, component: str) -> Draft202012Validator:
    """The component of /openapi.json (3.1: JSON Schema 2020-12), its $refs resolved in the document."""
    document = client.get("/openapi.json").json()
    schema = {"$ref": f"#/components/schemas/{component}", "components": document["components"]}
    return Draft202012Validator(schema, format_checker=FormatChecker())


def answers(client, agent, booking) -> dict:
    """The v1 answer (opened with the traveller's e-mail), checked to be the MCP tool's and to match both
    schemas."""
    v1 = client.get(f"/api/v1/bookings/{booking.reference}", {"email": "anna@example.com"})
    assert v1.status_code == 200, v1.content
    arguments = {"reference": booking.reference, "email": "anna@example.com"}
    tool = tool_result(call(client, agent, "booking.get_booking", arguments))
    assert tool["isError"] is False and tool["structuredContent"] == v1.json()
    openapi_validator(client, "BookingStateOutput").validate(v1.json())
    output_validator(client, agent, "booking.get_booking").validate(tool["structuredContent"])
    return v1.json()


def move(booking, state, driver, at):
    with time_machine.travel(at, tick=False):
        ride_day.advance(booking.pk, state, driver=driver, actor=f"{driver.name} (chauffeur)")


def test_the_answers_follow_the_chauffeur_through_every_move(client, agent, fleet, assigned):  # noqa: F811
    body = answers(client, agent, assigned)
    assert (body["status"], body["driver"]) == (
        "confirmed",
        {"name": "Karl Huber", "phone": "+43 660 1112223"},
    )
    assert body["vehicle"] == {"model": "E-Class", "plate": "W-1000A"}
    assert body["ride"] == NOTHING_YET
    start = assigned.pickup_at - timedelta(minutes=30)  # within the start window; completed after the pickup
    expected = dict(NOTHING_YET)
    for minutes, state in enumerate(
        [RideState.ACCEPTED, RideState.ON_THE_WAY, RideState.ARRIVED, RideState.ON_BOARD, RideState.COMPLETED]
    ):
        at = start + timedelta(minutes=10 * minutes + 1)
        move(assigned, state, fleet["karl"], at)
        expected |= {"state": state.value, TIMES[state]: timezone.localtime(at).isoformat()}
        body = answers(client, agent, assigned)
        assert body["ride"] == expected, state
    assert body["status"] == "completed" and body["ride"]["noShowAt"] is None
    assert body["ride"]["onTheWayAt"].endswith(("+01:00", "+02:00"))  # Vienna's time, like every member
    assert body["driver"]["name"] == "Karl Huber" and body["vehicle"]["plate"] == "W-1000A"


def test_a_no_show_ends_the_ride_without_a_pickup(client, agent, fleet, assigned):  # noqa: F811
    RideDayPolicy.objects.create(pk=1, included_waiting_minutes=15, included_waiting_flight_minutes=60)
    pickup = assigned.pickup_at
    for state in (RideState.ACCEPTED, RideState.ON_THE_WAY, RideState.ARRIVED):
        move(assigned, state, fleet["karl"], pickup - timedelta(minutes=5))
    move(assigned, RideState.NO_SHOW, fleet["karl"], pickup + timedelta(minutes=16))
    with time_machine.travel(pickup + timedelta(minutes=20), tick=False):
        body = answers(client, agent, assigned)
    assert body["status"] == "completed" and body["ride"]["state"] == "no_show"
    assert body["ride"]["noShowAt"] == timezone.localtime(pickup + timedelta(minutes=16)).isoformat()
    assert body["ride"]["onBoardAt"] is None and body["ride"]["completedAt"] is None


def test_a_move_staff_undid_leaves_the_answer(client, agent, fleet, assigned):  # noqa: F811
    for state in (RideState.ACCEPTED, RideState.ON_THE_WAY):
        move(assigned, state, fleet["karl"], assigned.pickup_at - timedelta(minutes=30))
    ride_day.undo_last(assigned.pk, actor="eva (staff)")
    body = answers(client, agent, assigned)
    assert body["ride"]["state"] == "accepted" and body["ride"]["onTheWayAt"] is None
    assert body["ride"]["acceptedAt"] is not None


def test_a_refused_move_changes_no_answer(client, agent, fleet, assigned):  # noqa: F811
    before = answers(client, agent, assigned)
    with pytest.raises(ride_day.RideMoveRefused):
        ride_day.advance(assigned.pk, RideState.ARRIVED, driver=fleet["karl"], actor="Karl Huber (chauffeur)")
    assert answers(client, agent, assigned) == before


def test_before_a_chauffeur_is_assigned_there_is_no_car_and_no_ride(client, agent, ride):  # noqa: F811
    body = answers(client, agent, ride())
    assert (body["status"], body["driver"], body["vehicle"]) == ("paid", None, None)
    assert body["ride"] == NOTHING_YET


def test_the_documents_describe_the_new_members(client, agent):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    ride_schema = schemas["RideOutput"]
    assert set(ride_schema["required"]) == {"state", *TIMES.values()}
    assert schemas["RideStateEnum"]["enum"] == [state.value for state in RideState]
    assert all(ride_schema["properties"][name]["description"] for name in ride_schema["properties"])
    assert set(schemas["VehicleOutput"]["properties"]) == {"model", "plate"}
    tool = output_validator(client, agent, "booking.get_booking").schema
    ride_member = tool["properties"]["ride"]
    assert set(ride_member["allOf"][0]["properties"]) == {"state", *TIMES.values()}
    assert ride_member["description"].startswith("The ride's day")
    assert "RideStateEnum" not in str(tool)  # inlined: the tool's schema stands on its own


def test_the_legacy_session_answer_is_unchanged(client, fleet, ride):  # noqa: F811
    booking = ride(provider_session_id="sbx_cs_ride")
    assign(booking, fleet["karl"], fleet["sedan"])
    ride_day.advance(booking.pk, RideState.ACCEPTED, driver=fleet["karl"], actor="Karl Huber (chauffeur)")
    data = client.get("/api/get-session-data", {"session_id": "sbx_cs_ride"}).json()["bookingData"]
    assert set(data) == {
        "from",
        "reference",
        "status",
        "paymentStatus",
        "amountCents",
        "currency",
        "priceEur",
        "to",
        "pickupDatetime",
        "estimatedArrival",
        "distanceKm",
        "inZoneA",
        "vehicleClass",
        "bookingType",
        "durationHours",
        "name",
        "email",
        "phone",
        "locale",
        "notes",
        "flightNumber",
        "waterChoice",
        "tourName",
        "flightData",
        "createdAt",
        "paidAt",
    }
