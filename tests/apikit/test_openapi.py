import ast

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from apikit.catalog import v1_operations
from tests.imports import PROJECT_PACKAGES, ROOT

pytestmark = pytest.mark.django_db

PROBLEM = {"$ref": "#/components/schemas/Problem"}
LEGACY_ERROR = {"$ref": "#/components/schemas/LegacyError"}
JSON_RPC_ERROR = {"$ref": "#/components/schemas/JsonRpcError"}


def error_content(path: str) -> dict:
    if path.startswith(("/api/v1", "/api/page/")):  # the booking page reads problem+json
        return {"application/problem+json": {"schema": PROBLEM}}
    return {"application/json": {"schema": JSON_RPC_ERROR if path == "/api/mcp" else LEGACY_ERROR}}


@pytest.fixture
def document(client):
    response = client.get("/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_openapi_3_1_with_the_contract_version(document):
    assert document["openapi"] == "3.1.0"
    assert document["info"]["version"] == "1.1.0"


def test_every_operation_documents_its_parameters(document):
    parameters = {
        path: {
            parameter["name"]: parameter.get("required", False)
            for parameter in item["get"].get("parameters", [])
        }
        for path, item in document["paths"].items()
        if "get" in item
    }
    assert parameters["/api/v1"] == {}
    assert parameters["/api/v1/price"] == {
        "vehicleClass": True,
        "distanceKm": True,
        "tourSlug": False,
        "waitMinutes": False,
        "inZoneA": False,
        "bookingType": False,
        "durationHours": False,
        "passengers": False,
        "luggage": False,
        "extras": False,
        "stopWaits": False,
    }
    assert parameters["/api/v1/extras"] == {}
    assert parameters["/api/v1/availability"] == {"pickupDatetime": True, "bookingDatetime": False}
    distance = {"from": True, "to": True, "fromPlaceId": False, "toPlaceId": False, "pickupDatetime": False}
    assert parameters["/api/calculate-distance"] == distance
    assert parameters["/api/v1/distance"] == {**distance, "stops": False}  # v1 routes through stops
    places = {"input": True, "sessionToken": False, "locale": False}
    assert parameters["/api/v1/places"] == parameters["/api/places-autocomplete"] == places
    assert parameters["/api/v1/rating"] == parameters["/api/google-rating"] == {}


def test_checkout_declares_its_bearer_scheme_and_scope(client, document):
    assert document["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    assert document["paths"]["/api/v1/checkout"]["post"]["security"] == [{"bearerAuth": ["booking.write"]}]
    assert document["paths"]["/api/create-checkout-session"]["post"].get("security", [{}]) == [{}]  # none
    catalog = {(item["method"], item["path"]): item for item in client.get("/api/v1").json()["operations"]}
    assert catalog[("POST", "/api/v1/checkout")]["tokenRequired"] is True
    assert catalog[("POST", "/api/v1/checkout")]["scopes"] == ["booking.write"]
    assert catalog[("GET", "/api/v1/price")]["tokenRequired"] is False
    assert document["paths"]["/api/create-payment-intent"]["post"]["deprecated"] is True


def test_domain_failures_are_documented(document):
    distance = document["paths"]["/api/v1/distance"]["get"]["responses"]
    assert {"400", "422", "503"} <= set(distance)
    assert "503" in document["paths"]["/api/v1/places"]["get"]["responses"]
    assert "x-error-statuses" not in document["paths"]["/api/v1/distance"]["get"]


def test_every_error_is_in_its_surface_format_and_every_response_has_rate_limit_headers(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert {"429", "500"} <= set(responses), (method, path)
            assert {"200", "201", "204"} & set(responses), (method, path)
            assert "Retry-After" in responses["429"]["headers"]
            for status, response in responses.items():
                assert {"RateLimit", "RateLimit-Policy"} <= set(response["headers"]), (path, status)
                if status == "414":  # gunicorn's own refusal of a long request line, before Django
                    assert "content" not in response, path
                elif status >= "400":
                    assert response["content"] == error_content(path), (path, status)
            if operation.get("parameters"):
                assert "400" in responses


def test_the_agent_endpoint_is_documented(document):
    mcp = document["paths"]["/api/mcp"]
    assert mcp["get"]["security"] == [{}]
    assert mcp["post"]["security"] == [{"bearerAuth": []}]
    assert {"200", "202", "400", "401", "403", "404", "429"} <= set(mcp["post"]["responses"])
    request = mcp["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert request == {
        "oneOf": [
            {"$ref": "#/components/schemas/JsonRpcRequest"},
            {"$ref": "#/components/schemas/JsonRpcBatch"},
        ]
    }
    known, other = document["components"]["schemas"]["JsonRpcRequest"]["properties"]["method"]["anyOf"]
    assert known["enum"] == ["initialize", "ping", "tools/list", "tools/call", "server/discover"]
    assert other == {"type": "string", "minLength": 1}  # answered with -32601 in a 200, so not refused
    answers = mcp["post"]["responses"]["200"]["content"]["application/json"]["schema"]["oneOf"]
    assert answers == [
        {"$ref": f"#/components/schemas/{name}"}
        for name in ("JsonRpcResult", "JsonRpcError", "JsonRpcBatchResponse")
    ]


def test_the_problem_schema_lists_every_code(document):
    problem = document["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "detail", "code", "hint"} <= set(problem["required"])
    assert "amount_mismatch" in problem["properties"]["code"]["enum"]
    assert "payment_provider_unavailable" in problem["properties"]["code"]["enum"]


def test_checkout_documents_the_503_of_a_missing_payment_provider(document):
    for path in ("/api/v1/checkout", "/api/page/checkout"):
        assert (
            "Payment provider unavailable"
            in document["paths"][path]["post"]["responses"]["503"]["description"]
        )
    for path in ("/api/create-checkout-session", "/api/create-payment-intent"):
        assert "no payment provider" in document["paths"][path]["post"]["responses"]["500"]["description"]


def test_spectacular_validates_the_document():
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null")


def test_swagger_ui_is_served_with_local_assets(client):
    response = client.get("/api/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "drf_spectacular_sidecar" in html  # no CDN: works without internet
    # Its start-up script is a file of its own (no inline script under the Content-Security-Policy).
    assert '<script src="/api/docs?script="></script>' in html and "<script>" not in html
    script = client.get("/api/docs?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert "/openapi.json" in script.content.decode()
    assert (
        client.get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js").status_code == 200
    )


def test_the_catalog_lists_every_v1_operation_of_the_document(client, document):
    catalog = client.get("/api/v1").json()
    documented = {
        (method.upper(), path)
        for path, item in document["paths"].items()
        if path.startswith("/api/v1")
        for method in item
    }
    assert (
        {(operation["method"], operation["path"]) for operation in catalog["operations"]}
        == documented
        == {
            ("GET", "/api/v1"),
            ("GET", "/api/v1/price"),
            ("GET", "/api/v1/extras"),
            ("GET", "/api/v1/availability"),
            ("GET", "/api/v1/distance"),
            ("GET", "/api/v1/places"),
            ("GET", "/api/v1/rating"),
            ("POST", "/api/v1/checkout"),
            ("GET", "/api/v1/bookings"),
            ("GET", "/api/v1/bookings/{reference}"),
            ("POST", "/api/v1/bookings/{reference}/cancel"),
            ("POST", "/api/v1/bookings/{reference}/change-quotes"),
            ("POST", "/api/v1/bookings/{reference}/changes"),
            ("POST", "/api/v1/quote-requests"),
            ("GET", "/api/v1/quote-requests/{reference}"),
            ("GET", "/api/v1/webhook-endpoints"),
            ("POST", "/api/v1/webhook-endpoints"),
            ("GET", "/api/v1/webhook-endpoints/{endpoint_id}"),
            ("DELETE", "/api/v1/webhook-endpoints/{endpoint_id}"),
            ("POST", "/api/v1/webhook-endpoints/{endpoint_id}/resume"),
            ("GET", "/api/v1/webhook-endpoints/{endpoint_id}/deliveries"),
        }
    )
    assert catalog["version"] == "1.1.0"
    assert catalog["openapi"].endswith("/openapi.json")
    price = next(operation for operation in catalog["operations"] if operation["path"] == "/api/v1/price")
    assert price == {
        "method": "GET",
        "path": "/api/v1/price",
        "operationId": "getPrice",
        "summary": "Price a ride from the tariff tables",
        "tokenRequired": False,
        "scopes": [],
    }
    assert len(v1_operations()) == len(documented)
    cancel = next(
        operation for operation in catalog["operations"] if operation["operationId"] == "cancelBooking"
    )
    assert (cancel["tokenRequired"], cancel["scopes"]) == (
        False,
        ["booking.write"],
    )  # or the customer's e-mail
    listing = next(
        operation for operation in catalog["operations"] if operation["operationId"] == "listBookings"
    )
    assert (listing["tokenRequired"], listing["scopes"]) == (True, ["booking.read"])  # never by an e-mail


# --- schemathesis: generated requests for every operation, checked against the document --------------


@pytest.fixture
def web_schema(db, settings):
    settings.API_RATE_LIMIT_REQUESTS = 1_000_000  # the limit itself is tested elsewhere
    settings.PAYMENT_PROVIDER = "sandbox"  # no network; "none" answers the contract's deliberate 500
    from config.wsgi import application

    # As Django's test client does: a request must not close the test's connection mid-transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/openapi.json", application)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


schema = schemathesis.pytest.from_fixture("web_schema")


@schema.parametrize()
@settings(
    max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)
def test_no_operation_answers_5xx_or_breaks_its_schema(case):
    # Derandomized: CI sees the same generated requests every run, so a red run is a real regression.
    # Excluded here: "valid data must be accepted". With the sandbox provider checkout gets as far as the
    # price, and `amount` must be the server's own price (amount_mismatch, the contract's 400), which no
    # schema can state. test_schemathesis_live.py runs that check too, with every other, against gunicorn.
    case.call_and_validate(excluded_checks=[positive_data_acceptance])


def test_every_member_a_refusal_adds_is_in_the_error_schemas(document):
    """A member a DomainError adds (`extra={…}`) is declared on both surfaces' error schemas: a generated
    client that follows the document keeps it."""
    added = set()
    for package in PROJECT_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.keyword) and node.arg == "extra" and isinstance(node.value, ast.Dict):
                    added |= {key.value for key in node.value.keys if isinstance(key, ast.Constant)}
    assert {"expectedAmount", "earliestPickup", "minimumHours", "fittingClasses"} <= added
    schemas = document["components"]["schemas"]
    assert added <= set(schemas["Problem"]["properties"])
    assert added <= set(schemas["LegacyError"]["properties"])
