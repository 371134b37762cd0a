"""Checkout (docs/decisions.md §9) on the legacy endpoint and on /api/v1: the server's own price, the booking
stored before the provider is called, tokens and scopes, and every refusal leaving nothing behind."""

from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from urllib.parse import parse_qsl

import pytest
import responses
from django.utils import timezone

from booking.models import Booking, BookingStatus
from pricing.money import to_cents
from tests.conftest import assert_problem, bearer
from tests.payments import ledger_rows

LEGACY, V1 = "/api/create-checkout-session", "/api/v1/checkout"


pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


def pickup() -> str:
    return (
        (timezone.localtime() + timedelta(days=3))
        .replace(hour=10, minute=0, second=0, microsecond=0)
        .isoformat()
    )


def ride(**overrides) -> dict:
    return {
        "from": "Hotel Sacher",
        "to": "Flughafen Wien",
        "pickupDatetime": pickup(),
        "vehicleClass": "executive",
        "name": "Anna Berger",
        "email": "anna@example.com",
        "locale": "de",
        **overrides,
    }


def server_amount(client, data: dict) -> int:
    """What a client does: ask the route, then the price for it."""
    route = client.get("/api/v1/distance", {"from": data["from"], "to": data["to"]}).json()
    params = {
        "vehicleClass": data.get("vehicleClass", "executive"),
        "distanceKm": route["distance"],
        "inZoneA": str(route["inZoneA"]).lower(),
        "bookingType": data.get("bookingType", "distance"),
    }
    if "durationHours" in data:
        params["durationHours"] = data["durationHours"]
    return round(client.get("/api/v1/price", params).json()["priceEur"] * 100)


def post(client, path, body, **headers):
    return client.post(path, body, content_type="application/json", **headers)


# --- the happy path ---------------------------------------------------------------------------------


def test_the_right_amount_opens_a_checkout_session_and_stores_the_booking(client):
    data = ride(waterChoice="still", flightNumber="OS 123", notes="Child seat", flightData={"arr": "10:05"})
    amount = server_amount(client, data)
    response = post(client, LEGACY, {"amount": amount, "bookingData": data})
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"sessionId", "url"}
    assert body["url"] == f"https://chauffeur.test/booking/sandbox/{body['sessionId']}"
    booking = Booking.objects.get()
    assert booking.reference.startswith("CB-") and len(booking.reference) == 9
    assert set(booking.reference[3:]) <= set("ACDEFGHJKLMNPQRTUVWXY34679")
    assert (booking.status, booking.amount_cents, ledger_rows.session_of(booking)) == (
        "pending_payment",
        amount,
        body["sessionId"],
    )
    assert (booking.origin, booking.destination, booking.vehicle_class, booking.locale) == (
        "Hotel Sacher",
        "Flughafen Wien",
        "executive",
        "de",
    )
    assert (booking.water_choice, booking.flight_number, booking.notes) == ("still", "OS 123", "Child seat")
    assert booking.flight_data == {"arr": "10:05"}
    assert to_cents(booking.quote.price) == amount
    assert booking.quote.vehicle_class == "executive" and booking.quote.lines[0].code == "base_fare"
    assert booking.in_zone_a is True and booking.distance_km > 0
    assert booking.booking_data["waterChoice"] == "still"


def test_v1_checkout_with_a_write_token(client, writer):
    data = ride(vehicleClass="first")
    response = post(client, V1, {"amount": server_amount(client, data), "bookingData": data}, **writer)
    assert response.status_code == 201, response.content
    body = response.json()
    booking = Booking.objects.get()
    assert body == {
        "sessionId": ledger_rows.session_of(booking),
        "url": body["url"],
        "reference": booking.reference,
        "status": "pending_payment",
    }


def test_defaults_are_executive_and_a_distance_booking(client):
    data = {"from": "Hotel Sacher", "to": "Flughafen Wien"}  # the legacy minimum: no pickup time
    assert (
        post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data}).status_code == 200
    )
    booking = Booking.objects.get()
    assert (booking.vehicle_class, booking.booking_type, booking.pickup_at, booking.locale) == (
        "executive",
        "distance",
        None,
        "en",
    )


def test_hourly_and_tour_bookings_are_priced_by_the_server(client):
    hourly = ride(bookingType="hourly", durationHours=3)
    assert post(client, LEGACY, {"amount": 19500, "bookingData": hourly}).status_code == 200
    tour = ride(tourName="Vienna City Tour")
    assert post(client, LEGACY, {"amount": 24900, "bookingData": tour}).status_code == 200
    assert sorted(Booking.objects.values_list("amount_cents", flat=True)) == [19500, 24900]
    assert Booking.objects.get(amount_cents=24900).tour_slug == "vienna-city-tour"


# --- the price follows the route -------------------------------------------------------------------


@pytest.mark.parametrize("path", [LEGACY, V1])
def test_an_hourly_hire_shorter_than_its_drive_is_refused(client, writer, path):
    munich = ride(to="München", bookingType="hourly", durationHours=2)
    response = post(client, path, {"amount": 13000, "bookingData": munich}, **writer)
    assert response.status_code == 400
    body = response.json()
    assert body["minimumHours"] == 4.5  # the 4.45 h drive, in started half hours
    detail = body.get("detail", body.get("error"))
    assert "about 4.5 hours; an hourly hire of 2 hours cannot" in detail, detail
    if path == V1:
        assert_problem(response, 400, "hire_too_short", "bookingData.durationHours")
    assert Booking.objects.count() == 0


def test_a_long_hourly_hire_costs_at_least_the_same_ride_by_distance(client):
    munich = ride(to="München", bookingType="hourly", durationHours=5)
    amount = server_amount(client, munich)  # what /api/v1/price answers for the route's distance
    by_distance = server_amount(client, ride(to="München"))
    assert amount == by_distance > 5 * 6500
    assert (
        post(client, LEGACY, {"amount": 5 * 6500, "bookingData": munich}).json()["expectedAmount"] == amount
    )
    assert post(client, LEGACY, {"amount": amount, "bookingData": munich}).status_code == 200
    (booking,) = Booking.objects.all()
    assert booking.amount_cents == amount and booking.quote.lines[1].code == "distance_minimum"


@pytest.mark.parametrize(("end", "field"), [("to", "bookingData.to"), ("from", "bookingData.from")])
def test_a_tour_outside_its_area_is_refused(client, writer, end, field):
    prague = ride(tourName="Vienna City Tour", **{end: "Prag"})
    response = post(client, V1, {"amount": 24900, "bookingData": prague}, **writer)
    assert_problem(response, 400, "outside_tour_area", field)
    assert Booking.objects.count() == 0


# --- tokens and scopes ------------------------------------------------------------------------------


# The challenges name /api/v1's protected resource metadata (RFC 9728) and the scopes to ask for.
V1_METADATA = 'resource_metadata="https://chauffeur.test/.well-known/oauth-protected-resource/api/v1"'
NO_TOKEN = f'Bearer realm="chauffeur", {V1_METADATA}, scope="booking.read booking.write"'
BAD_TOKEN = (
    f'Bearer realm="chauffeur", error="invalid_token", {V1_METADATA}, scope="booking.read booking.write"'
)


@pytest.mark.parametrize(
    ("make_header", "status", "challenge"),
    [
        (lambda: {}, 401, NO_TOKEN),
        (lambda: {"HTTP_AUTHORIZATION": "Bearer cbt_not-a-token"}, 401, BAD_TOKEN),
        # Another scheme presents no bearer token: no error code (RFC 6750 §3.1), as on /api/mcp.
        (lambda: {"HTTP_AUTHORIZATION": "Basic dXNlcjpwYXNz"}, 401, NO_TOKEN),
        (lambda: bearer("booking.write", revoked_at=timezone.now()), 401, BAD_TOKEN),
        (lambda: bearer("booking.write", expires_at=timezone.now() - timedelta(days=1)), 401, BAD_TOKEN),
        (
            lambda: bearer("booking.read"),
            403,
            f'Bearer error="insufficient_scope", scope="booking.read booking.write", {V1_METADATA}',
        ),
        (lambda: bearer("booking.read", "booking.write"), 201, None),
    ],
)
def test_the_scope_matrix_of_v1_checkout(client, make_header, status, challenge):
    data = ride()
    response = post(client, V1, {"amount": server_amount(client, data), "bookingData": data}, **make_header())
    assert response.status_code == status, response.content
    assert response.get("WWW-Authenticate") == challenge
    assert Booking.objects.count() == (1 if status == 201 else 0)
    if status != 201:
        assert_problem(response, status, "unauthorized" if status == 401 else "insufficient_scope")
        assert Booking.objects.count() == 0


def test_legacy_checkout_needs_no_token(client):
    data = ride()
    response = post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
    assert response.status_code == 200, response.content
    booking = Booking.objects.get()
    assert (booking.status, ledger_rows.session_of(booking)) == (
        "pending_payment",
        response.json()["sessionId"],
    )


# --- refusals: nothing stored -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda body: body.pop("amount"), "amount"),
        (lambda body: body.update(amount=0), "amount"),
        (lambda body: body.update(amount=str(body["amount"])), "amount"),  # money is a JSON integer, not text
        (lambda body: body.update(amount=True), "amount"),
        (lambda body: body.update(amount=12.5), "amount"),
        (lambda body: body.pop("bookingData"), "bookingData"),
        (lambda body: body["bookingData"].pop("from"), "bookingData.from"),
        (lambda body: body["bookingData"].pop("to"), "bookingData.to"),
        (lambda body: body["bookingData"].update({"to": ""}), "bookingData.to"),
        (lambda body: body["bookingData"].update(vehicleClass="limousine"), "bookingData.vehicleClass"),
        (lambda body: body["bookingData"].update(bookingType="daily"), "bookingData.bookingType"),
        (lambda body: body["bookingData"].update(durationHours=1), "bookingData.durationHours"),
        (lambda body: body["bookingData"].update(email="not-an-address"), "bookingData.email"),
        (lambda body: body["bookingData"].update(locale="fr"), "bookingData.locale"),
        (lambda body: body["bookingData"].update(pickupDatetime="tomorrow"), "bookingData.pickupDatetime"),
        (lambda body: body["bookingData"].update(flightData="not an object"), "bookingData.flightData"),
        (lambda body: body["bookingData"].update(notes="x" * 2001), "bookingData.notes"),
        (lambda body: body["bookingData"].update(email="a" * 250 + "@example.com"), "bookingData.email"),
        (lambda body: body["bookingData"].update(flightData={"a": "\x00"}), "bookingData.flightData"),
        (
            lambda body: body["bookingData"].update(flightData={"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}),
            "bookingData.flightData",
        ),
        (
            lambda body: body["bookingData"].update(flightData={"a": list(range(500))}),
            "bookingData.flightData",
        ),
    ],
)
@pytest.mark.parametrize("path", [LEGACY, V1])
def test_each_wrong_or_missing_field_is_named(client, writer, path, change, field):
    body = {"amount": server_amount(client, ride()), "bookingData": ride()}
    change(body)
    response = post(client, path, body, **writer)
    assert response.status_code == 400, response.content
    if field:
        message = response.json()["detail" if path == V1 else "error"]
        assert field in message
        if path == V1:
            assert field in response.json()["errors"]
    assert Booking.objects.count() == 0


@pytest.mark.parametrize(
    "body",
    ["not json", "[1, 2]", '{"amount": 100, "bookingData": []}', "[" * 5000 + "]" * 5000, '{"a": "\\ud800"}'],
)
def test_malformed_bodies_are_400(client, body):
    response = client.post(LEGACY, body, content_type="application/json")
    assert response.status_code == 400
    assert "error" in response.json()
    assert Booking.objects.count() == 0


@pytest.mark.parametrize(
    ("path", "booking_data"),
    [
        (LEGACY, '{"from": "Hotel Sacher", "to": "Flughafen Wien", "name": 1e400}'),
        (V1, '{"from": "Hotel Sacher", "to": "Flughafen Wien", "flightData": {"x": 1e400}}'),
        (V1, '{"from": "Hotel Sacher", "to": "Flughafen Wien", "phone": -1e400}'),
        (V1, '{"from": "Hotel Sacher", "to": "Flughafen Wien", "notes": 1e400}'),
    ],
)
def test_numbers_too_large_to_store_are_400_not_500(client, writer, path, booking_data):
    body = f'{{"amount": 7400, "bookingData": {booking_data}}}'
    response = client.post(path, body, content_type="application/json", **writer)
    if path == V1:
        assert_problem(response, 400, "invalid_request")
    assert response.status_code == 400 and "too large" in str(response.json())
    assert Booking.objects.count() == 0


@pytest.mark.parametrize(
    ("tamper", "description"),
    [
        (lambda amount, data: (amount - 1, data), "one cent less"),
        (lambda amount, data: (amount + 100, data), "a euro more"),
        (lambda amount, data: (amount - 100, data), "a euro less"),
        (lambda amount, data: (amount, {**data, "distanceKm": 5, "priceEur": 59}), "a distance lie"),
        (
            lambda amount, data: (amount, {**data, "vehicleClass": "first"}),
            "another class for the same money",
        ),
    ],
)
@pytest.mark.parametrize("path", [LEGACY, V1])
def test_amount_tampering_is_refused_with_the_expected_amount(client, writer, path, tamper, description):
    data = ride(to="Salzburg")
    expected = server_amount(client, data)
    amount, sent = tamper(expected, data)
    if description == "a distance lie":  # the client claims a 5 km trip and pays for that: the minimum fare
        amount = 5900
    response = post(client, path, {"amount": amount, "bookingData": sent}, **writer)
    assert response.status_code == 400, description
    body = response.json()
    if sent.get("vehicleClass") == "first":
        expected = server_amount(client, sent)
    assert body["expectedAmount"] == expected
    if path == V1:
        assert body["code"] == "amount_mismatch"
    assert Booking.objects.count() == 0


@pytest.mark.parametrize("path", [LEGACY, V1])
def test_a_pickup_inside_the_lead_time_is_refused(client, writer, path):
    soon = (timezone.localtime() + timedelta(minutes=30)).isoformat()
    data = ride(pickupDatetime=soon)
    response = post(client, path, {"amount": server_amount(client, data), "bookingData": data}, **writer)
    assert response.status_code == 400
    assert response.json()["earliestPickup"]
    if path == V1:
        assert_problem(response, 400, "lead_time", "bookingData.pickupDatetime")
    assert Booking.objects.count() == 0


@pytest.mark.parametrize(
    ("change", "field", "code"),
    [
        ({"bookingType": "hourly"}, "bookingData.durationHours", "invalid_request"),
        ({"tourName": "Moon walk"}, "bookingData.tourName", "unknown_tour"),
    ],
)
@pytest.mark.parametrize("path", [LEGACY, V1])
def test_a_rule_of_the_tariffs_names_its_field(client, writer, path, change, field, code):
    # Rules no schema can state (they hang on another field, or on the tours offered): the contract's 400
    # (DECISIONS §4) on every door.
    body = {"amount": server_amount(client, ride()), "bookingData": ride(**change)}
    response = post(client, path, body, **writer)
    if path == V1:
        assert_problem(response, 400, code, field)
    else:
        assert response.status_code == 400, response.content
        assert field in response.json()["error"]
    assert Booking.objects.count() == 0


@pytest.mark.parametrize("path", [LEGACY, V1])
def test_an_unknown_place_is_refused(client, writer, path):
    response = post(client, path, {"amount": 7400, "bookingData": ride(to="Atlantis")}, **writer)
    assert response.status_code == (400 if path == LEGACY else 422)
    assert Booking.objects.count() == 0


def test_without_a_payment_provider_legacy_checkout_is_the_contracts_500(client, settings):
    settings.PAYMENT_PROVIDER = "none"
    response = post(client, LEGACY, {"amount": server_amount(client, ride()), "bookingData": ride()})
    assert response.status_code == 500
    assert response.json() == {"error": "payment provider not configured"}
    assert Booking.objects.count() == 0


def test_without_a_payment_provider_v1_checkout_is_a_503_and_stores_nothing(client, writer, settings):
    settings.PAYMENT_PROVIDER = "none"
    response = post(client, V1, {"amount": server_amount(client, ride()), "bookingData": ride()}, **writer)
    body = assert_problem(response, 503, "payment_provider_unavailable")
    assert "Nothing was booked" in body["hint"]
    assert Booking.objects.count() == 0


# --- the provider fails: the booking is kept ----------------------------------------------------------


@pytest.fixture
def stripe_down(settings):
    settings.PAYMENT_PROVIDER = "stripe"
    settings.STRIPE_SECRET_KEY = "sk_test_123"
    settings.STRIPE_API_BASE = "https://stripe.test"
    with responses.RequestsMock() as mock:
        mock.post("https://stripe.test/v1/checkout/sessions", status=500, json={"error": {"message": "down"}})
        yield mock


@pytest.mark.parametrize(("path", "status"), [(LEGACY, 500), (V1, 502)])
def test_provider_down_keeps_the_booking_and_says_so(client, writer, stripe_down, path, status):
    data = ride()
    response = post(client, path, {"amount": server_amount(client, data), "bookingData": data}, **writer)
    assert response.status_code == status
    if path == V1:
        assert_problem(response, 502, "payment_provider_unavailable")
    assert "sk_test_123" not in response.content.decode()
    booking = Booking.objects.get()
    assert (booking.status, ledger_rows.session_of(booking), booking.payments.count()) == (
        "pending_payment",
        None,
        0,
    )
    assert len(stripe_down.calls) == 1
    key = stripe_down.calls[0].request.headers["Idempotency-Key"]
    expires_at = dict(parse_qsl(stripe_down.calls[0].request.body))["expires_at"]
    assert key == f"checkout-{booking.reference}-{expires_at}"  # a page opened again closes later


# --- the legacy card flow ----------------------------------------------------------------------------


def test_payment_intent_is_deprecated_with_its_headers(client):
    response = post(client, "/api/create-payment-intent", {"amount": 7400})
    assert response.status_code == 200
    assert response.json()["clientSecret"].startswith("sbx_pi_")
    since = datetime.fromtimestamp(int(response["Deprecation"].removeprefix("@")), tz=UTC).date()
    sunset = parsedate_to_datetime(response["Sunset"]).date()
    assert sunset - since >= timedelta(days=90)
    assert response["Link"].endswith('; rel="deprecation"')
    refused = post(client, "/api/create-payment-intent", {"amount": 0})
    assert refused.status_code == 400
    assert "Deprecation" in refused and "Sunset" in refused  # errors carry them too


def test_payment_intent_through_stripe(client, settings):
    settings.PAYMENT_PROVIDER = "stripe"
    settings.STRIPE_SECRET_KEY = "sk_test_123"
    settings.STRIPE_API_BASE = "https://stripe.test"
    with responses.RequestsMock() as mock:
        mock.post(
            "https://stripe.test/v1/payment_intents",
            json={"id": "pi_1", "object": "payment_intent", "client_secret": "pi_1_secret_2", "amount": 7400},
        )
        response = post(client, "/api/create-payment-intent", {"amount": 7400})
        assert "amount=7400" in mock.calls[0].request.body
    assert response.json() == {"clientSecret": "pi_1_secret_2"}


def test_booking_states_move_only_through_allowed_transitions(admin_client, client):
    data = ride()
    post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data})
    booking = Booking.objects.get()
    changelist = "/admin/booking/booking/"
    admin_client.post(changelist, {"action": "mark_completed", "_selected_action": [booking.pk]})
    assert Booking.objects.get().status == BookingStatus.PENDING_PAYMENT  # not paid: cannot be completed
    admin_client.post(f"{changelist}{booking.pk}/do/cancel/")
    assert Booking.objects.get().status == BookingStatus.CANCELLED
    admin_client.post(f"{changelist}{booking.pk}/do/mark-paid/", {"method": "cash"})
    assert Booking.objects.get().status == BookingStatus.CANCELLED
    listing = admin_client.get(
        changelist, {"q": booking.reference, "status__exact": "cancelled"}
    ).content.decode()
    assert booking.reference in listing
    assert admin_client.get(changelist, {"q": "anna@example.com"}).status_code == 200
    assert admin_client.post(f"{changelist}{booking.pk}/delete/", {"post": "yes"}).status_code == 403


def test_only_declared_booking_fields_are_kept(client):
    data = ride(secret="\u0000 not ours")
    assert (
        post(client, LEGACY, {"amount": server_amount(client, data), "bookingData": data}).status_code == 200
    )
    assert "secret" not in Booking.objects.get().booking_data


@pytest.fixture
def stripe_up(settings):
    settings.PAYMENT_PROVIDER = "stripe"
    settings.STRIPE_SECRET_KEY = "sk_test_123"
    settings.STRIPE_API_BASE = "https://stripe.test"
    with responses.RequestsMock() as mock:
        yield mock


def test_checkout_through_stripe_stores_the_session_and_sends_the_pages(client, writer, stripe_up):
    stripe_up.post(
        "https://stripe.test/v1/checkout/sessions",
        json={
            "id": "cs_test_9",
            "object": "checkout.session",
            "url": "https://checkout.stripe.com/c/pay/cs_test_9",
        },
    )
    data = ride()
    response = post(client, V1, {"amount": server_amount(client, data), "bookingData": data}, **writer)
    assert response.status_code == 201, response.content
    assert response.json()["url"] == "https://checkout.stripe.com/c/pay/cs_test_9"
    booking = Booking.objects.get()
    assert ledger_rows.session_of(booking) == "cs_test_9"
    sent = dict(pair.split("=", 1) for pair in stripe_up.calls[0].request.body.split("&"))
    from urllib.parse import unquote_plus

    sent = {unquote_plus(key): unquote_plus(value) for key, value in sent.items()}
    assert sent["success_url"] == "https://chauffeur.test/booking/success?session_id={CHECKOUT_SESSION_ID}"
    assert sent["cancel_url"].startswith("https://chauffeur.test/booking/cancel?booking=")
    assert sent["metadata[reference]"] == booking.reference
    assert sent["locale"] == "de" and sent["customer_email"] == "anna@example.com"
    closes = datetime.fromtimestamp(int(sent["expires_at"]), tz=UTC)
    assert closes <= booking.pickup_at - timedelta(hours=2)  # no payment after the pickup's lead time
    assert closes >= timezone.now() + timedelta(minutes=30)


def test_a_clients_idempotency_key_is_scoped_to_that_client(client, stripe_up):
    for _ in range(2):
        stripe_up.post(
            "https://stripe.test/v1/payment_intents", json={"id": "pi_1", "client_secret": "pi_1_secret"}
        )
    post(
        client,
        "/api/create-payment-intent",
        {"amount": 7400},
        HTTP_IDEMPOTENCY_KEY="k1",
        REMOTE_ADDR="198.51.100.1",
    )
    post(
        client,
        "/api/create-payment-intent",
        {"amount": 7400},
        HTTP_IDEMPOTENCY_KEY="k1",
        REMOTE_ADDR="198.51.100.2",
    )
    first, second = (call.request.headers["Idempotency-Key"] for call in stripe_up.calls)
    assert first.startswith("pi-") and first != "k1" and first != second
