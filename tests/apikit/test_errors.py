import pytest

from apikit.problems import PROBLEM_KINDS, flatten_errors
from tests.conftest import assert_problem

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v1/price/", "/api/v1/", "/api/v1/price/extra"])
def test_unknown_v1_path_is_a_problem(client, path):
    body = assert_problem(client.get(path), 404, "not_found")
    assert path in body["detail"]


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
@pytest.mark.parametrize("path", ["/api/v1", "/api/v1/price", "/api/v1/availability"])
def test_wrong_method_is_a_problem_with_allow(client, path, method):
    response = getattr(client, method)(path)
    assert_problem(response, 405, "invalid_request")
    assert response["Allow"] == "GET, HEAD, OPTIONS"


def test_unknown_legacy_path_answers_plain_json(client):
    response = client.post("/api/not-there")
    assert response.status_code == 404
    assert response.json() == {"error": "No operation at /api/not-there."}


def test_too_many_query_parameters_is_a_400_problem(client):
    query = "&".join("p" for _ in range(1100))  # within the 4094 bytes of a request target
    body = assert_problem(client.get(f"/api/v1?{query}"), 400, "invalid_request")
    assert "too large" in body["detail"]


def test_a_foreign_host_header_is_a_400_problem(client):
    assert_problem(client.get("/api/v1", HTTP_HOST="attacker.example"), 400, "invalid_request")
    legacy = client.get("/api/anything", HTTP_HOST="attacker.example")
    assert (legacy.status_code, legacy.json()) == (400, {"error": "The request was refused as malformed."})


def test_an_unservable_accept_header_is_a_406_problem(client):
    response = client.get("/api/v1/price?vehicleClass=executive&distanceKm=2", HTTP_ACCEPT="application/xml")
    body = assert_problem(response, 406, "invalid_request")
    assert "openapi.json" in body["hint"]


def test_malformed_query_strings_do_not_crash(client):
    response = client.get("/api/v1/price?vehicleClass=%ff%fe&distanceKm=%00")
    assert_problem(response, 400, "invalid_request")


@pytest.mark.urls("tests.config.crash_urls")
def test_a_crash_in_a_v1_view_is_a_bare_500_problem(client, caplog):
    response = client.get("/api/v1/crash")
    body = assert_problem(response, 500, "internal_error")
    assert "hunter2" not in response.content.decode()
    assert "Traceback" not in response.content.decode()
    assert "hunter2" in caplog.text  # the operator still sees it in the log
    assert set(body) == {"type", "title", "status", "detail", "code", "hint"}


@pytest.mark.urls("tests.config.crash_urls")
def test_a_crash_in_a_legacy_view_is_a_bare_500(client):
    response = client.get("/api/crash")
    assert response.status_code == 500
    assert response.json() == {"error": "The server failed to handle this request."}


@pytest.mark.urls("tests.config.crash_urls")
def test_a_crash_outside_drf_still_answers_in_the_api_format(client):
    client.raise_request_exception = False
    response = client.get("/api/plain-crash")
    assert response.status_code == 500
    assert response.json() == {"error": "The server failed to handle this request."}
    assert "hunter2" not in response.content.decode()


DECISIONS_CODES = {
    "invalid_request",
    "unauthorized",
    "insufficient_scope",
    "not_found",
    "rate_limited",
    "route_not_found",
    "upstream_unavailable",
    "unknown_tour",
    "lead_time",
    "amount_mismatch",
    "payment_provider_unavailable",
    "internal_error",
}
# Codes this service adds where the decisions are silent (docs/decisions.md §4, §8, §9).
OUR_CODES = {
    "hire_too_short",
    "outside_tour_area",
    "idempotency_key_reused",
    "idempotency_conflict",
    "idempotency_key_spent",  # a key whose booking can no longer be paid
    "not_cancellable",
    "account_not_allowed",
    "email_not_yours",  # a traveller's token checking out for another address
    "invalid_phone",  # a phone no chauffeur can call (sitekit/phones.py)
    "text_messages_unavailable",  # texts asked for a number that may get none
    "vehicle_too_small",  # more passengers or luggage than the class takes
    "too_many_stops",  # more stops on the way than the class makes
    "unknown_extra",
    "too_many_extras",  # more than the class allows, or more child seats than passengers
    "not_changeable",  # a booking's state, car or chauffeur under way no longer allows a change
    "stale_change_quote",  # a change quote used, expired, or the booking changed since
    "request_too_large",  # a body over what the service reads (413)
    "uri_too_long",  # a path and query over what the service reads (414)
}


def test_every_problem_code_of_the_decisions_is_known():
    assert set(PROBLEM_KINDS) == DECISIONS_CODES | OUR_CODES


def test_nested_validation_errors_are_flattened_with_dotted_names():
    detail = {
        "bookingData": {"email": ["Enter a valid email address."], "non_field_errors": ["Bad."]},
        "amount": ["Required."],
    }
    assert flatten_errors(detail) == {
        "bookingData.email": ["Enter a valid email address."],
        "bookingData": ["Bad."],
        "amount": ["Required."],
    }
    assert flatten_errors(["Invalid JSON."]) == {"request": ["Invalid JSON."]}
