"""The booking page's checkout (POST /api/page/checkout) and CORS for the operator's websites: which
endpoints a browser on an allowed origin may call, with correct preflights, and which stay server-to-server."""

import pytest

from booking.models import Booking
from tests.booking.test_checkout import pickup, server_amount
from tests.conftest import assert_problem

PAGE = "/api/page/checkout"
WEBSITE = "https://www.hotel-beispiel.at"
STRANGER = "https://evil.example"

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


@pytest.fixture(autouse=True)
def website(settings):
    settings.CORS_ALLOWED_ORIGINS = [WEBSITE]


def page_ride(**overrides) -> dict:
    return {"from": "Hotel Sacher", "to": "Flughafen Wien", "pickupDatetime": pickup()[:16],
            "vehicleClass": "executive", "bookingType": "distance", "name": "Anna Berger",
            "email": "anna@example.com", "phone": "+43 660 1234567", "locale": "de", **overrides}  # fmt: skip


def post(client, body, **headers):
    """The page's request: with the terms ticked unless the body says otherwise (tests/booking/test_consent.py)."""
    return client.post(PAGE, {"termsAccepted": True, **body}, content_type="application/json", **headers)


def test_the_page_checkout_books_without_a_token(client):
    data = page_ride(notes="Child seat", flightNumber="OS 123")
    response = post(client, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 201, response.content
    body = response.json()
    booking = Booking.objects.get()
    assert body == {"sessionId": booking.provider_session_id, "url": body["url"],
                    "reference": booking.reference, "status": "pending_payment"}  # fmt: skip
    assert (booking.name, booking.phone, booking.locale, booking.notes) == (
        "Anna Berger", "+43 660 1234567", "de", "Child seat",
    )  # fmt: skip


@pytest.mark.parametrize("missing", ["name", "email", "phone", "pickupDatetime", "vehicleClass"])
def test_the_page_names_the_missing_field_and_stores_nothing(client, missing):
    data = page_ride()
    amount = server_amount(client, data)
    del data[missing]
    response = post(client, {"amount": amount, "bookingData": data})
    body = assert_problem(response, 400, "invalid_request", f"bookingData.{missing}")
    assert set(body["errors"]) == {f"bookingData.{missing}"}
    assert Booking.objects.count() == 0


def test_a_pickup_too_soon_is_a_problem_with_the_earliest_pickup(client):
    data = page_ride(pickupDatetime="2020-01-01T10:00")
    response = post(client, {"amount": 7400, "bookingData": data})
    body = assert_problem(response, 400, "lead_time", "bookingData.pickupDatetime")
    assert body["earliestPickup"].endswith(("+01:00", "+02:00"))
    assert Booking.objects.count() == 0


def test_the_page_checkout_is_rate_limited_in_problem_json(client, settings):
    settings.API_RATE_LIMIT_REQUESTS = 1
    post(client, {"amount": 1, "bookingData": page_ride()})
    response = post(client, {"amount": 1, "bookingData": page_ride()})
    assert_problem(response, 429, "rate_limited")
    assert int(response["Retry-After"]) >= 1


# --- CORS -------------------------------------------------------------------------------------------


def preflight(client, path, origin=WEBSITE, method="POST", headers="content-type, idempotency-key"):
    return client.options(
        path,
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD=method,
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS=headers,
    )


def test_a_preflight_from_the_website_allows_the_page_checkout(client):
    response = preflight(client, PAGE)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == WEBSITE
    assert "POST" in response["Access-Control-Allow-Methods"]
    allowed = {name.strip() for name in response["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "idempotency-key"} <= allowed and "authorization" not in allowed
    assert "RateLimit" not in response  # a preflight is not counted as a request


def test_the_website_reads_the_public_endpoints_and_their_rate_limit_headers(client):
    for path in ["/api/v1/price?vehicleClass=executive&distanceKm=20", "/api/v1/rating", "/api/v1",
                 "/api/v1/places?input=Sacher", "/api/calculate-distance?from=Sacher&to=Westbahnhof",
                 "/embed/form?lang=de"]:  # fmt: skip
        response = client.get(path, HTTP_ORIGIN=WEBSITE)
        assert response.status_code == 200, path
        assert response["Access-Control-Allow-Origin"] == WEBSITE, path
        assert "origin" in response["Vary"].lower(), path
    exposed = client.get("/api/v1/rating", HTTP_ORIGIN=WEBSITE)["Access-Control-Expose-Headers"]
    assert {"RateLimit", "RateLimit-Policy", "Retry-After"} <= {name.strip() for name in exposed.split(",")}


def test_the_page_checkout_answers_the_website_across_origins(client):
    data = page_ride()
    response = post(client, {"amount": server_amount(client, data), "bookingData": data}, HTTP_ORIGIN=WEBSITE)
    assert response.status_code == 201
    assert response["Access-Control-Allow-Origin"] == WEBSITE


def test_another_origin_gets_no_cors_headers(client):
    assert "Access-Control-Allow-Origin" not in preflight(client, PAGE, origin=STRANGER)
    assert "Access-Control-Allow-Origin" not in client.get("/api/v1/rating", HTTP_ORIGIN=STRANGER)


@pytest.mark.parametrize("path", ["/api/v1/checkout", "/api/mcp", "/api/create-payment-intent"])
def test_bearer_token_endpoints_stay_server_to_server(client, path):
    response = preflight(client, path, headers="content-type, authorization")
    assert "Access-Control-Allow-Origin" not in response
    assert "Access-Control-Allow-Origin" not in client.post(path, {}, HTTP_ORIGIN=WEBSITE)


def test_no_origin_is_allowed_by_default(client, settings):
    settings.CORS_ALLOWED_ORIGINS = []
    assert "Access-Control-Allow-Origin" not in preflight(client, PAGE)
    assert "Access-Control-Allow-Origin" not in client.get("/api/v1/rating", HTTP_ORIGIN=WEBSITE)


def test_a_tour_is_booked_by_its_slug_at_its_fixed_price(client):
    data = page_ride(to="Stephansplatz", tourName="vienna-city-tour")
    route = client.get("/api/v1/distance", {"from": data["from"], "to": data["to"]}).json()
    price = client.get("/api/v1/price", {"vehicleClass": "executive", "distanceKm": route["distance"],
                                         "tourSlug": "vienna-city-tour"}).json()  # fmt: skip
    assert price["priceEur"] == 249.0
    response = post(client, {"amount": 24900, "bookingData": data})
    assert response.status_code == 201, response.content
    assert (Booking.objects.get().tour_slug, Booking.objects.get().amount_cents) == (
        "vienna-city-tour",
        24900,
    )
