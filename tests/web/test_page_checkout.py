"""The booking page's checkout (POST /api/page/checkout) and CORS for the operator's websites: which
endpoints a browser on an allowed origin may call, with correct preflights, and which stay server-to-server."""

import pytest

from booking.models import Booking
from tests.booking.test_checkout import pickup, server_amount
from tests.conftest import assert_problem
from tests.payments import ledger_rows

PAGE = "/api/page/checkout"
WEBSITE = "https://www.hotel-beispiel.at"
STRANGER = "https://evil.example"

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


@pytest.fixture(autouse=True)
def website(settings):
    settings.CORS_ALLOWED_ORIGINS = [WEBSITE]


def page_ride(**overrides) -> dict:
    return {
        "from": "Hotel Sacher",
        "to": "Flughafen Wien",
        "pickupDatetime": pickup()[:16],
        "vehicleClass": "executive",
        "bookingType": "distance",
        "name": "Anna Berger",
        "email": "anna@example.com",
        "phone": "+43 660 1234567",
        "locale": "de",
        **overrides,
    }


def post(client, body, **headers):
    """The page's request: with the terms ticked unless the body says otherwise (tests/booking/test_consent.py)."""
    return client.post(PAGE, {"termsAccepted": True, **body}, content_type="application/json", **headers)


def test_the_page_checkout_books_without_a_token(client):
    data = page_ride(notes="Child seat", flightNumber="OS 123")
    response = post(client, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 201, response.content
    body = response.json()
    booking = Booking.objects.get()
    assert body == {
        "sessionId": ledger_rows.session_of(booking),
        "url": body["url"],
        "reference": booking.reference,
        "status": "pending_payment",
    }
    assert (booking.name, booking.phone, booking.locale, booking.notes) == (
        "Anna Berger",
        "+436601234567",
        "de",
        "Child seat",  # stored as E.164
    )


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


def test_the_embedded_form_may_send_its_page_session_to_every_endpoint_it_calls(client):
    for path in ["/api/page/quote", "/api/v1/places", "/api/v1/availability", PAGE]:
        response = preflight(client, path, method="GET", headers="page-session")
        assert response["Access-Control-Allow-Origin"] == WEBSITE, path
        assert "page-session" in response["Access-Control-Allow-Headers"], path


def test_the_website_reads_the_public_endpoints_and_their_rate_limit_headers(client):
    for path in [
        "/api/v1/price?vehicleClass=executive&distanceKm=20",
        "/api/v1/rating",
        "/api/v1",
        "/api/v1/places?input=Sacher",
        "/api/calculate-distance?from=Sacher&to=Westbahnhof",
        "/embed/form?lang=de",
    ]:
        response = client.get(path, HTTP_ORIGIN=WEBSITE)
        assert response.status_code == 200, path
        assert response["Access-Control-Allow-Origin"] == WEBSITE, path
        assert "origin" in response["Vary"].lower(), path
    exposed = client.get("/api/v1/rating", HTTP_ORIGIN=WEBSITE)["Access-Control-Expose-Headers"]
    assert {"RateLimit", "RateLimit-Policy", "Retry-After"} <= {name.strip() for name in exposed.split(",")}


def test_an_answer_without_an_origin_still_varies_by_origin_for_shared_caches(client):
    # A cache in front must not hand the answer without CORS headers to the website's cross-origin call.
    for path in ["/api/v1/rating", "/api/v1", "/api/calculate-distance?from=Sacher&to=Westbahnhof"]:
        response = client.get(path)
        assert response.status_code == 200, path
        assert "origin" in response["Vary"].lower() and "Access-Control-Allow-Origin" not in response, path
    assert "origin" not in client.get("/healthz").get("Vary", "").lower()  # outside CORS_URLS_REGEX


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
    price = client.get(
        "/api/v1/price",
        {"vehicleClass": "executive", "distanceKm": route["distance"], "tourSlug": "vienna-city-tour"},
    ).json()
    assert price["priceEur"] == 249.0
    response = post(client, {"amount": 24900, "bookingData": data})
    assert response.status_code == 201, response.content
    assert (Booking.objects.get().tour_slug, Booking.objects.get().amount_cents) == (
        "vienna-city-tour",
        24900,
    )


# --- "as directed": an hourly hire or a tour without a destination ------------------------------------------


def test_an_hourly_hire_without_a_destination_is_booked_by_the_hour_as_directed(client):
    data = page_ride(to="", bookingType="hourly", durationHours=3, flightNumber="OS 123", notes="Wait at B")
    response = post(client, {"amount": 19500, "bookingData": data})  # 3 h × 65 EUR, nothing for a route
    assert response.status_code == 201, response.content
    booking = Booking.objects.get()
    assert (booking.destination, booking.booking_type, booking.duration_hours) == ("", "hourly", 3)
    assert (booking.distance_km, booking.estimated_arrival, booking.amount_cents) == (0, None, 19500)
    assert booking.in_zone_a is True  # placed by its pickup


def test_an_hourly_hire_may_leave_the_destination_out_altogether(client):
    data = page_ride(bookingType="hourly", durationHours=2)
    del data["to"]
    assert post(client, {"amount": 13000, "bookingData": data}).status_code == 201
    assert Booking.objects.get().destination == ""


def test_a_tour_without_a_destination_ends_where_it_began(client):
    data = page_ride(to="", tourName="vienna-city-tour")
    assert post(client, {"amount": 24900, "bookingData": data}).status_code == 201
    assert (Booking.objects.get().tour_slug, Booking.objects.get().destination) == ("vienna-city-tour", "")


def test_a_transfer_without_a_destination_is_refused_on_its_field(client):
    data = page_ride(to="")
    body = assert_problem(
        post(client, {"amount": 7400, "bookingData": data}), 400, "invalid_request", "bookingData.to"
    )
    assert set(body["errors"]) == {"bookingData.to"}
    assert Booking.objects.count() == 0


def test_an_unknown_pickup_of_an_as_directed_hire_is_not_routed(client):
    data = page_ride(to="", bookingType="hourly", durationHours=3)
    data["from"] = "Qwxzy Nowhere 99"
    assert_problem(post(client, {"amount": 19500, "bookingData": data}), 422, "route_not_found")
    assert Booking.objects.count() == 0


@pytest.mark.parametrize("path", ["/api/v1/checkout", "/api/create-checkout-session"])
def test_the_public_api_still_requires_a_destination_as_the_contract_says(client, path, writer):
    data = page_ride(bookingType="hourly", durationHours=3)
    del data["to"]
    response = client.post(
        path, {"amount": 19500, "bookingData": data}, content_type="application/json", **writer
    )
    assert response.status_code == 400
    assert "bookingData.to" in response.content.decode()
    assert Booking.objects.count() == 0
