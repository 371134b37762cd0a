"""booking.create_checkout on /api/mcp (docs/decisions.md §10): the agent's booking data in, the
/api/v1/checkout response out, the same booking stored as the REST checkout would store, and every
refusal an isError result that stores nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from booking.models import Booking
from payments.models import IdempotentCheckout
from tests.conftest import bearer
from tests.mcp_endpoint.mcp import (
    call,
    checkout_arguments,
    output_validator,
    result_of,
    rpc,
    tool_problem,
    tool_result,
)
from tests.payments import ledger_rows

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


# --- schemas --------------------------------------------------------------------------------------


def test_the_checkout_tool_takes_the_agents_booking_data(client, agent):
    listed = {tool["name"]: tool for tool in result_of(rpc(client, agent, "tools/list"))["tools"]}
    schema = listed["booking.create_checkout"]["inputSchema"]
    assert schema["required"] == ["amount", "bookingData"]
    ride = schema["properties"]["bookingData"]
    assert set(ride["required"]) == {"from", "to", "pickupDatetime", "vehicleClass"}
    assert {"waterChoice", "tourName", "flightData"}.isdisjoint(ride["properties"])
    assert {"name", "email", "phone", "flightNumber", "locale", "notes", "durationHours"} <= set(
        ride["properties"]
    )
    assert ride["additionalProperties"] is False


def inlined(schema, components: dict):
    """The schema with its components in place of their references, as a tool's schema carries them."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            return inlined(components[schema["$ref"].rsplit("/", 1)[1]], components)
        return {key: inlined(value, components) for key, value in schema.items()}
    if isinstance(schema, list):
        return [inlined(item, components) for item in schema]
    return schema


def test_the_checkout_tools_output_is_the_v1_checkout_response(client, agent):
    listed = {item["name"]: item for item in result_of(rpc(client, agent, "tools/list"))["tools"]}
    document = client.get("/openapi.json").json()
    v1 = document["paths"]["/api/v1/checkout"]["post"]["responses"]["201"]["content"]["application/json"]
    component = document["components"]["schemas"][v1["schema"]["$ref"].rsplit("/", 1)[1]]
    output = listed["booking.create_checkout"]["outputSchema"]
    assert output["properties"] == inlined(component["properties"], document["components"]["schemas"])
    assert set(output["required"]) == set(component["required"])


# --- tools/call -----------------------------------------------------------------------------------


def test_a_checkout_through_the_tool_stores_the_booking_the_rest_checkout_would(client, agent):
    arguments = checkout_arguments(client, agent, phone="+43 660 1234567", flightNumber="OS 123", locale="de")
    result = tool_result(call(client, agent, "booking.create_checkout", arguments))
    assert result["isError"] is False
    output_validator(client, agent, "booking.create_checkout").validate(result["structuredContent"])
    rest = client.post("/api/v1/checkout", arguments, content_type="application/json", **agent)
    assert rest.status_code == 201, rest.content
    assert set(result["structuredContent"]) == set(rest.json()) == {"sessionId", "url", "reference", "status"}
    assert result["structuredContent"]["status"] == rest.json()["status"] == "pending_payment"

    by_tool = Booking.objects.get(reference=result["structuredContent"]["reference"])
    by_rest = Booking.objects.get(reference=rest.json()["reference"])
    assert ledger_rows.session_of(by_tool) == result["structuredContent"]["sessionId"]
    assert (
        result["structuredContent"]["url"]
        == f"https://chauffeur.test/booking/sandbox/{ledger_rows.session_of(by_tool)}"
    )
    own = {
        "id",
        "reference",
        "created_at",
        "updated_at",
        "channel",
        "terms_accepted_at",
    }
    fields = [field.attname for field in Booking._meta.concrete_fields if field.attname not in own]
    assert {name: getattr(by_tool, name) for name in fields} == {
        name: getattr(by_rest, name) for name in fields
    }
    assert (by_tool.channel, by_rest.channel) == ("agent", "api")  # where each came from


def test_the_checkout_tool_refuses_the_websites_own_fields_and_needs_time_and_class(client, agent):
    arguments = checkout_arguments(client, agent, waterChoice="still", tourName="Wachau", flightData={"a": 1})
    del arguments["bookingData"]["pickupDatetime"], arguments["bookingData"]["vehicleClass"]
    problem = tool_problem(call(client, agent, "booking.create_checkout", arguments))
    assert set(problem["errors"]) == {
        "bookingData.waterChoice",
        "bookingData.tourName",
        "bookingData.flightData",
        "bookingData.pickupDatetime",
        "bookingData.vehicleClass",
    }
    assert Booking.objects.count() == 0


def test_a_wrong_amount_is_an_is_error_result_with_the_expected_amount(client, agent):
    arguments = checkout_arguments(client, agent)
    expected = arguments["amount"]
    problem = tool_problem(
        call(client, agent, "booking.create_checkout", {**arguments, "amount": expected - 100})
    )
    assert (problem["code"], problem["expectedAmount"]) == ("amount_mismatch", expected)
    assert problem["hint"]
    assert Booking.objects.count() == 0


def test_a_pickup_inside_the_lead_time_is_an_is_error_result(client, agent):
    arguments = checkout_arguments(client, agent)
    arguments["bookingData"]["pickupDatetime"] = (timezone.localtime() + timedelta(minutes=30)).isoformat()
    problem = tool_problem(call(client, agent, "booking.create_checkout", arguments))
    assert problem["code"] == "lead_time" and "earliestPickup" in problem
    assert Booking.objects.count() == 0


def test_a_retried_checkout_within_ten_minutes_returns_the_same_booking(client, agent):
    arguments = checkout_arguments(client, agent)
    first = tool_result(call(client, agent, "booking.create_checkout", arguments))["structuredContent"]
    again = tool_result(call(client, agent, "booking.create_checkout", arguments))["structuredContent"]
    assert again == first and Booking.objects.count() == 1
    other_agent = bearer("booking.read", "booking.write")  # another token: its own booking
    theirs = tool_result(call(client, other_agent, "booking.create_checkout", arguments))["structuredContent"]
    assert theirs["reference"] != first["reference"]
    IdempotentCheckout.objects.update(created_at=timezone.now() - timedelta(minutes=11))
    later = tool_result(call(client, agent, "booking.create_checkout", arguments))["structuredContent"]
    assert later["reference"] not in {first["reference"], theirs["reference"]}
    assert Booking.objects.count() == 3


def test_an_hourly_hire_shorter_than_its_drive_is_an_is_error_result(client, agent):
    arguments = checkout_arguments(client, agent, to="München", bookingType="hourly", durationHours=2)
    problem = tool_problem(call(client, agent, "booking.create_checkout", arguments))
    assert (problem["code"], problem["minimumHours"]) == ("hire_too_short", 4.5)
    assert problem["errors"] == {
        "bookingData.durationHours": [problem["errors"]["bookingData.durationHours"][0]]
    }
    assert Booking.objects.count() == 0


def test_without_a_payment_provider_the_checkout_tool_says_so(client, agent, settings):
    arguments = checkout_arguments(client, agent)
    settings.PAYMENT_PROVIDER = "none"
    problem = tool_problem(call(client, agent, "booking.create_checkout", arguments))
    rest = client.post("/api/v1/checkout", arguments, content_type="application/json", **agent)
    assert problem == rest.json()
    assert Booking.objects.count() == 0


def test_a_way_back_with_its_optional_members_as_null_is_a_return_trip_and_a_misspelt_one_is_named(
    client, agent
):
    arguments = checkout_arguments(client, agent)
    out = timezone.datetime.fromisoformat(arguments["bookingData"]["pickupDatetime"])
    arguments["amount"] *= 2  # the way back is the same drive reversed: the same price
    way_back = {"pickupDatetime": (out + timedelta(days=2)).isoformat(), "from": None, "flightNumber": None}

    misspelt = {
        **arguments,
        "bookingData": {**arguments["bookingData"], "wayBack": {**way_back, "flight": "OS 1"}},
    }
    problem = tool_problem(call(client, agent, "booking.create_checkout", misspelt))
    assert set(problem["errors"]) == {"bookingData.wayBack.flight"} and not Booking.objects.exists()

    arguments["bookingData"]["wayBack"] = way_back
    result = tool_result(call(client, agent, "booking.create_checkout", arguments))
    assert result["isError"] is False, result
    back = Booking.objects.get(reference=result["structuredContent"]["wayBack"]["reference"])
    assert (back.origin, back.destination, back.way_out.reference) == (
        "Flughafen Wien",
        "Hotel Sacher",
        result["structuredContent"]["reference"],
    )
