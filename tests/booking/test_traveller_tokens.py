"""A token that acts for a traveller (OAuth; booking/ownership.py): it reads and cancels that
traveller's bookings and nobody else's, whatever e-mail address it sends, on /api/v1 and on /api/mcp alike,
and it books in the traveller's name. An agency's OAuth token keeps what its grant booked across a refresh.
Refusals change nothing. Tokens without a traveller keep the rules of docs/decisions.md §9
(tests/booking/test_lifecycle_api.py, tests/mcp_endpoint/test_booking_tools.py)."""

import pytest

from access import tokens
from booking.models import Booking
from tests.booking.test_checkout import V1, post, ride, server_amount
from tests.booking.travellers import access_token, grant, stored_booking, unchanged
from tests.conftest import assert_problem, bearer
from tests.mcp_endpoint.mcp import call, checkout_arguments, tool_problem, tool_result

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]

ANNA, EVE = "anna@example.com", "eve@example.com"


def url(reference: str, action: str = "") -> str:
    return f"/api/v1/bookings/{reference}{action}"


# --- reading and cancelling: the traveller's bookings ------------------------------------------------


def test_a_travellers_token_reads_their_booking_whoever_made_it(client):
    annas = stored_booking("Anna@Example.com")  # booked on the website, before the assistant was connected
    _, anna = access_token(ANNA, scopes=("booking.read",))
    response = client.get(url(annas.reference.lower()), **anna)  # no e-mail needed
    assert response.status_code == 200, response.content
    assert response.json()["reference"] == annas.reference
    result = tool_result(call(client, anna, "booking.get_booking", {"reference": annas.reference}))
    assert result["isError"] is False and result["structuredContent"] == response.json()


@pytest.mark.parametrize("sent", [{}, {"email": EVE}, {"email": ANNA}])
def test_a_travellers_token_cannot_read_another_travellers_booking(client, sent):
    """Not even with the other traveller's e-mail address: a traveller's token opens by its own address
    only, so it learns of another's booking what an unknown reference tells."""
    eves = stored_booking(EVE)
    _, anna = access_token(ANNA)
    refused = assert_problem(client.get(url(eves.reference), sent, **anna), 404, "not_found")
    unknown = assert_problem(client.get(url("CB-XXXXXX"), sent, **anna), 404, "not_found")
    assert refused["detail"] == unknown["detail"]
    problem = tool_problem(call(client, anna, "booking.get_booking", {"reference": eves.reference, **sent}))
    assert (problem["code"], problem["detail"]) == ("not_found", unknown["detail"])


def test_an_address_that_only_folds_to_the_travellers_is_anothers(client):
    """The letter ß lower-cases to itself: the address at straße.de is not the one at strasse.de."""
    theirs = stored_booking("anna@strasse.de")
    _, anna = access_token("anna@straße.de")
    assert_problem(client.get(url(theirs.reference), **anna), 404, "not_found")
    assert client.get(url(stored_booking("ANNA@STRAßE.DE").reference), **anna).status_code == 200


@pytest.mark.parametrize("door", ["v1", "mcp"])
@pytest.mark.parametrize("sent", [{}, {"email": EVE}])
def test_a_travellers_token_cannot_cancel_another_travellers_booking(client, door, sent):
    eves = stored_booking(EVE)
    _, anna = access_token(ANNA)
    if door == "v1":
        assert_problem(post(client, url(eves.reference, "/cancel"), sent, **anna), 404, "not_found")
    else:
        arguments = {"reference": eves.reference, **sent}
        assert tool_problem(call(client, anna, "booking.cancel_booking", arguments))["code"] == "not_found"
    assert unchanged(eves)


@pytest.mark.parametrize("door", ["v1", "mcp"])
def test_a_travellers_token_cancels_their_booking(client, door):
    annas = stored_booking(ANNA)
    _, anna = access_token(ANNA, name="Claude for anna@example.com")
    if door == "v1":
        response = post(client, url(annas.reference, "/cancel"), {}, **anna)
        assert response.status_code == 200, response.content
        answer = response.json()
    else:
        result = tool_result(call(client, anna, "booking.cancel_booking", {"reference": annas.reference}))
        assert result["isError"] is False, result
        answer = result["structuredContent"]
    assert answer["status"] == "cancelled" and Booking.objects.get(pk=annas.pk).status == "cancelled"
    assert annas.history.filter(kind="status").last().actor == "API token “Claude for anna@example.com”"


def test_without_the_write_scope_a_travellers_token_cancels_nothing_even_with_the_email(client):
    """The e-mail address that opens a booking for a caller without a token does not stand in for the
    scope of a traveller's token."""
    annas = stored_booking(ANNA)
    _, reader = access_token(ANNA, scopes=("booking.read",))
    response = post(client, url(annas.reference, "/cancel"), {"email": ANNA}, **reader)
    assert_problem(response, 403, "insufficient_scope")
    assert unchanged(annas)


def test_a_static_token_still_opens_a_booking_by_the_travellers_email(client):
    """Unchanged for tokens that act for nobody (docs/decisions.md §9): their own bookings, and any
    booking whose customer's e-mail address they send."""
    eves = stored_booking(EVE)
    agency = bearer("booking.read", "booking.write")
    assert_problem(client.get(url(eves.reference), **agency), 404, "not_found")
    assert client.get(url(eves.reference), {"email": EVE}, **agency).status_code == 200
    arguments = {"reference": eves.reference, "email": EVE}
    assert tool_result(call(client, agency, "booking.get_booking", arguments))["isError"] is False


# --- an agency's OAuth grant: what one of its tokens booked, every later token of it opens ------------


def test_a_booking_made_under_an_agency_grant_survives_the_refresh_of_its_token(client):
    agency = grant()
    first, _ = access_token(of=agency, name="Hotel X concierge")
    booked = stored_booking(EVE, token=first)
    tokens.revoke(first)  # the client refreshed: its old access token is dead
    _, refreshed = access_token(of=agency, name="Hotel X concierge")
    assert client.get(url(booked.reference), **refreshed).status_code == 200
    result = tool_result(call(client, refreshed, "booking.get_booking", {"reference": booked.reference}))
    assert result["isError"] is False and result["structuredContent"]["reference"] == booked.reference
    # Another grant of the same client, or a static token, did not book it.
    _, other_grant = access_token(of=grant(client=agency.client))
    assert_problem(client.get(url(booked.reference), **other_grant), 404, "not_found")
    assert_problem(client.get(url(booked.reference), **bearer("booking.read")), 404, "not_found")
    assert unchanged(booked)
    response = post(client, url(booked.reference, "/cancel"), {}, **refreshed)
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert booked.history.filter(kind="status").last().actor == "API token “Hotel X concierge”"


# --- checkout: in the traveller's name -------------------------------------------------------------


def v1_checkout(client, headers: dict, **changes):
    data = {key: value for key, value in ride(**changes).items() if value is not None}
    return post(client, V1, {"amount": server_amount(client, data), "bookingData": data}, **headers)


@pytest.mark.parametrize("sent", [None, ANNA, " Anna@EXAMPLE.com"])
def test_a_travellers_checkout_books_in_their_name(client, sent):
    token, anna = access_token(ANNA)
    response = v1_checkout(client, anna, email=sent)  # None: left out
    assert response.status_code == 201, response.content
    booking = Booking.objects.get(reference=response.json()["reference"])
    assert (booking.email, booking.api_token_id) == (ANNA, token.pk)
    assert client.get(url(booking.reference), **anna).status_code == 200  # and it is theirs to read


def test_a_travellers_checkout_for_another_address_is_refused_and_stores_nothing(client):
    _, anna = access_token(ANNA)
    response = v1_checkout(client, anna, email=EVE)
    body = assert_problem(response, 403, "email_not_yours", "bookingData.email")
    assert ANNA in body["detail"] and EVE not in body["detail"]
    assert not Booking.objects.exists()


def test_the_checkout_tool_books_in_the_travellers_name_and_refuses_another_address(client):
    token, anna = access_token(ANNA)
    refused = tool_problem(
        call(client, anna, "booking.create_checkout", checkout_arguments(client, anna, email=EVE))
    )
    assert (refused["code"], refused["status"]) == ("email_not_yours", 403)
    assert "bookingData.email" in refused["errors"]
    assert not Booking.objects.exists()
    arguments = checkout_arguments(client, anna)
    del arguments["bookingData"]["email"]
    result = tool_result(call(client, anna, "booking.create_checkout", arguments))
    assert result["isError"] is False, result
    booking = Booking.objects.get()
    assert (booking.email, booking.api_token_id) == (ANNA, token.pk)


def test_a_static_tokens_checkout_keeps_the_address_it_sends(client):
    response = v1_checkout(client, bearer("booking.write"), email=EVE)
    assert response.status_code == 201, response.content
    assert Booking.objects.get().email == EVE
