"""Requests too large for the service are refused in their surface's format before a view reads them:
414 for a path and query over 4094 bytes, 413 for an API body over Django's limit; nothing is stored."""

import json

import pytest

from apikit.request_limits import MAX_TARGET_BYTES
from booking.models import Booking
from tests.booking.test_checkout import ride
from tests.conftest import assert_problem

LONG = "x" * MAX_TARGET_BYTES


@pytest.mark.django_db
def test_a_long_v1_query_is_414_problem_json(client):
    answer = client.get("/api/v1/places", {"input": LONG})
    body = assert_problem(answer, 414, "uri_too_long")
    assert "4094 bytes" in body["detail"]


@pytest.mark.django_db
def test_a_query_at_the_limit_reaches_the_operation(client):
    path = "/api/v1/places?input="
    answer = client.get(path + "a" * (MAX_TARGET_BYTES - len(path)))
    assert_problem(answer, 400, "invalid_request", "input")  # its own rule: 200 characters


@pytest.mark.django_db
def test_a_long_legacy_query_is_414_in_the_legacy_format(client):
    answer = client.get("/api/places-autocomplete", {"input": LONG})
    assert answer.status_code == 414
    assert answer["Content-Type"] == "application/json"
    assert "4094 bytes" in answer.json()["error"]


@pytest.mark.django_db
def test_a_long_agent_endpoint_address_is_a_json_rpc_error(client):
    answer = client.get("/api/mcp", {"x": LONG})
    assert answer.status_code == 414
    body = answer.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    assert "4094 bytes" in body["error"]["message"]


@pytest.mark.django_db
def test_a_long_page_address_is_a_short_page(client):
    answer = client.get("/", {"q": LONG}, HTTP_ACCEPT_LANGUAGE="de")
    assert answer.status_code == 414
    assert answer["Content-Type"].startswith("text/html")
    assert "Diese Adresse ist zu lang" in answer.content.decode()


@pytest.mark.django_db
def test_an_oversized_checkout_is_413_and_stores_nothing(client, writer, settings, sandbox):
    body = json.dumps({**ride(), "notes": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)})
    answer = client.post("/api/v1/checkout", body, content_type="application/json", **writer)
    assert_problem(answer, 413, "request_too_large")
    assert answer["Connection"] == "close"
    legacy = client.post("/api/create-checkout-session", body, content_type="application/json")
    assert legacy.status_code == 413
    assert str(settings.DATA_UPLOAD_MAX_MEMORY_SIZE) in legacy.json()["error"]
    assert Booking.objects.count() == 0
