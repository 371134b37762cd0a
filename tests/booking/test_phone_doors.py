"""Phone numbers at every door (sms/phones.py): the red team's numbers are refused on the booking page, the
legacy and v1 checkouts, the MCP tool, the staff phone form and the driver's form, each in its own format,
and nothing is stored; a number that is kept is E.164. Texts asked for a number that may get none are
refused at checkout, not discovered when the SMS job gives up."""

import pytest

from booking.models import Booking
from fleet.models import Driver
from tests.admin_forms import empty_inline
from tests.booking.test_checkout import post, ride, server_amount
from tests.conftest import assert_problem, bearer
from tests.dispatch.test_phone_booking import ADD, form
from tests.mcp_endpoint.mcp import call, checkout_arguments, result_of, rpc, tool_problem, tool_result
from tests.sitekit.test_phones import COSTLY, GARBAGE
from tests.web.test_page_checkout import page_ride
from tests.web.test_page_checkout import post as page_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]
REFUSED = [*GARBAGE, "+43 930 123456", "+882 3421234"]


def checkout_body(client, **data) -> dict:
    booking_data = ride(**data)
    return {"amount": server_amount(client, booking_data), "bookingData": booking_data}


@pytest.mark.parametrize("phone", REFUSED)
def test_v1_refuses_with_a_field_problem_and_stores_nothing(client, phone):
    response = post(client, "/api/v1/checkout", checkout_body(client, phone=phone), **bearer("booking.write"))
    assert_problem(response, 400, "invalid_phone", "bookingData.phone")
    assert not Booking.objects.exists()


@pytest.mark.parametrize("phone", REFUSED)
def test_the_legacy_checkout_refuses_in_its_own_body_and_stores_nothing(client, phone):
    response = post(client, "/api/create-checkout-session", checkout_body(client, phone=phone))
    assert response.status_code == 400 and set(response.json()) == {"error"}
    assert "phone" in response.json()["error"]
    assert not Booking.objects.exists()


@pytest.mark.parametrize("phone", REFUSED)
@pytest.mark.parametrize("payment", ["checkout", "account"])
def test_the_booking_page_refuses_and_stores_nothing(client, phone, payment, mailoutbox):
    data = page_ride(phone=phone)
    body = {"amount": server_amount(client, data), "bookingData": data, "paymentMethod": payment}
    assert_problem(page_post(client, body), 400, "invalid_phone", "bookingData.phone")
    assert not Booking.objects.exists() and not mailoutbox


@pytest.mark.parametrize("phone", ["+43 1 234 56 78", "+1 202 555 0143", "+44 7400 123456"])
def test_texts_for_a_number_that_may_get_none_are_refused_at_checkout(client, phone):
    data = page_ride(phone=phone, textMessages=True, locale="en")
    problem = assert_problem(
        page_post(client, {"amount": server_amount(client, data), "bookingData": data}),
        400,
        "text_messages_unavailable",
        "bookingData.textMessages",
    )
    assert "Austria, Germany" in problem["detail"]
    assert not Booking.objects.exists()


def test_a_mobile_with_texts_is_booked_as_e164(client):
    data = page_ride(phone="0664 123 45 67", textMessages=True)
    response = page_post(client, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 201, response.content
    booking = Booking.objects.get()
    assert (booking.phone, booking.text_messages) == ("+436641234567", True)


@pytest.mark.parametrize("phone", REFUSED)
def test_the_mcp_tool_refuses_with_a_tool_error_and_stores_nothing(client, agent, phone):
    arguments = checkout_arguments(client, agent, phone=phone)
    problem = tool_problem(call(client, agent, "booking.create_checkout", arguments))
    assert problem["code"] == "invalid_phone" and "bookingData.phone" in problem["errors"]
    assert not Booking.objects.exists()


def test_the_mcp_tool_says_the_format_in_its_input_schema(client, agent):
    tools = {tool["name"]: tool for tool in result_of(rpc(client, agent, "tools/list"))["tools"]}
    booking_data = tools["booking.create_checkout"]["inputSchema"]["properties"]["bookingData"]
    phone = booking_data["properties"]["phone"]
    assert "E.164" in phone["description"] and "premium-rate" in phone["description"].lower()
    assert tool_result(call(client, agent, "booking.create_checkout", checkout_arguments(client, agent)))


def test_the_openapi_document_says_the_format(client):
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    described = [
        schema[name]["properties"]["phone"]["description"]
        for name in schema
        if "phone" in schema[name].get("properties", {}) and name.endswith("Request")
    ]
    assert described and all("E.164" in text for text in described)


@pytest.mark.parametrize("phone", REFUSED)
def test_the_staff_phone_form_refuses_beside_the_field_and_stores_nothing(admin_client, phone):
    response = admin_client.post(ADD, {**form(phone=phone), "_book": "Book"})
    assert response.status_code == 200
    assert "phone" in response.context["form"].errors
    assert not Booking.objects.exists()


def test_the_staff_phone_form_stores_e164(admin_client):
    admin_client.post(ADD, {**form(phone="0660 987 65 43"), "_book": "Book"})
    assert Booking.objects.get().phone == "+436609876543"


@pytest.mark.parametrize("phone", [*REFUSED, *COSTLY[:1]])
def test_the_drivers_form_refuses_and_changes_nothing(admin_client, phone):
    driver = Driver.objects.create(name="Karl Huber", phone="+436601112223")
    response = admin_client.post(
        f"/admin/fleet/driver/{driver.pk}/change/",
        {
            "name": "Karl Huber",
            "phone": phone,
            "email": "",
            "languages": "de",
            "active": "on",
            **empty_inline("papers"),
        },
    )
    assert response.status_code == 200 and "phone" in response.context["adminform"].form.errors
    assert Driver.objects.get().phone == "+436601112223"


def test_the_drivers_form_stores_e164(admin_client):
    driver = Driver.objects.create(name="Karl Huber", phone="+436601112223")
    response = admin_client.post(
        f"/admin/fleet/driver/{driver.pk}/change/",
        {
            "name": "Karl Huber",
            "phone": "0664 555 66 77",
            "email": "",
            "languages": "de",
            "active": "on",
            **empty_inline("papers"),
        },
    )
    assert response.status_code == 302
    assert Driver.objects.get().phone == "+436645556677"
