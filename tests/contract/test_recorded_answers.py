"""Every operation of the contract (legacy /api/, /api/v1, MCP /api/mcp), asked in a fixed order at a fixed
time with fixed tokens, must answer byte for byte what recorded_answers.json holds: status, every header
and the body. `RECORD=1 pytest tests/contract/test_recorded_answers.py` rewrites the recording; review its
diff as an API change.

Only values made at random in this run are replaced, each by a placeholder naming what it is and the step
that made it: a booking's reference and what derives from it (its sandbox checkout session and payment
intent, its manage link's signature), its database id inside a page cursor (PostgreSQL's sequences are
not rolled back), and the sandbox's random client secret of the legacy card flow. Content-Length is
checked against the bytes sent and recorded as the hidden body's length. Nothing else is normalised. Every backend must give SQLite's answers; a legitimate difference would be recorded apart,
under the backend's name."""

import contextlib
import difflib
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core import signing
from django.db import connection
from django.test import override_settings

from access.models import ApiToken
from access.tokens import PREFIX_LENGTH, digest_of
from booking.models import Booking
from tests.conftest import clear_shared_cache
from tests.payments import ledger_rows
from tests.payments.ledger_rows import own_intent

RECORDING = Path(__file__).with_name("recorded_answers.json")
VIENNA = ZoneInfo("Europe/Vienna")
NOW = datetime(2026, 11, 20, 9, 0, tzinfo=VIENNA)  # a Friday morning, outside the night window
PICKUP = "2026-11-23T10:00:00+01:00"  # Monday: far enough ahead, cancellable for free
TOO_SOON = "2026-11-20T10:00:00+01:00"  # within the 120-minute lead time
MCP = "/api/mcp"
MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "replay", "version": "1"},
}

# Fixed plain tokens, stored as issue_token stores them, so the requests (and the recording) name them.
TOKENS = {
    "reader": ("cbt_replay_reader_000000000000000000000000000000", ["booking.read"], None),
    "writer": ("cbt_replay_writer_000000000000000000000000000000", ["booking.write"], None),
    "agent": ("cbt_replay_agent_0000000000000000000000000000000", ["booking.read", "booking.write"], None),
    "limited": ("cbt_replay_limited_00000000000000000000000000000", ["booking.read"], 1),
}
UNKNOWN_TOKEN = "cbt_replay_unknown_00000000000000000000000000000"

# Made at random in this run: the sandbox's client secret has no key to derive it from.
CLIENT_SECRET = re.compile(r"sbx_pi_[0-9a-f]{24}_secret_[0-9a-f]{24}")
# A page cursor: the last booking's pickup in microseconds and its database id, which PostgreSQL's
# sequences (not rolled back with a test) make differ from run to run.
CURSOR = re.compile(r"\b(\d{13,17}|x)_(\d+)\b")
MANAGE_SALT = "booking.manage-page"  # the customer's page link signs the (random) reference
# Backends whose differences from SQLite's answers are recorded apart, under their name.
OWN_ANSWERS = ("postgresql",)


@dataclass
class Ask:
    """One request; its path, query and body may name earlier steps' placeholders (see Placeholders)."""

    name: str
    method: str
    path: str
    query: dict | None = None
    body: dict | list | str | None = None
    caller: str | None = None  # a key of TOKENS, or a literal Authorization value when it has a space
    headers: dict[str, str] = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    keep_rate_window: bool = False  # count against the earlier requests' rate-limit window

    def url(self, fill=lambda text: text) -> str:
        query = {name: fill(value) for name, value in (self.query or {}).items()}
        return fill(self.path) + (f"?{urlencode(query)}" if query else "")

    def payload(self) -> str | None:
        if self.body is None or isinstance(self.body, str):
            return self.body
        return json.dumps(self.body)


@dataclass
class Pay:
    """Not a contract request: the sandbox page's Pay button, so a paid booking can be read and cancelled."""

    booking_made_by: str  # the step that stored it


def get(name, path, query=None, **details) -> Ask:
    return Ask(name, "GET", path, query, **details)


def post(name, path, body, **details) -> Ask:
    return Ask(name, "POST", path, body=body, **details)


def rpc(name, method, params=None, *, caller="agent", request_id=1, headers=None, path=MCP) -> Ask:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return post(name, path, message, caller=caller, headers=headers or {})


def tool(name, tool_name, arguments, *, caller="agent") -> Ask:
    return rpc(name, "tools/call", {"name": tool_name, "arguments": arguments}, caller=caller, request_id=7)


def modern(name, method, params=None, *, caller="agent") -> Ask:
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if params and "name" in params:
        headers["Mcp-Name"] = params["name"]
    return rpc(name, method, {**(params or {}), "_meta": ENVELOPE}, caller=caller, headers=headers)


def ride(**changes) -> dict:
    return {
        "from": "Hotel Sacher",
        "to": "Flughafen Wien",
        "pickupDatetime": PICKUP,
        "vehicleClass": "executive",
        "name": "Anna Berger",
        "email": "anna@example.com",
        "locale": "de",
        **changes,
    }


ROUTE = {"from": "Hotel Sacher", "to": "Flughafen Wien"}
AMOUNT = 7400  # the seeded executive tariff for the route above: 30 + 21.8 km × 2.00, rounded up
NO_PROVIDER = {"PAYMENT_PROVIDER": "none"}
LEGACY_CHECKOUT, CHECKOUT = "/api/create-checkout-session", "/api/v1/checkout"


def idempotent_checkouts(surface, path, key, customer, **details) -> list[Ask]:
    """A checkout with an Idempotency-Key, the same again (the first answer replayed), and the key reused
    for another body."""

    def checkout(step, name):
        body = {"amount": AMOUNT, "bookingData": ride(name=name)}
        return post(f"{surface} checkout {step}", path, body, headers={"Idempotency-Key": key}, **details)

    return [
        checkout("idempotent", customer),
        checkout("idempotent replayed", customer),
        checkout("idempotent key reused for another body", "Other"),
    ]


LEGACY = [
    get("legacy distance", "/api/calculate-distance", ROUTE),
    get(
        "legacy distance with pickup and place ids",
        "/api/calculate-distance",
        {
            **ROUTE,
            "fromPlaceId": "offline:hotel-sacher",
            "toPlaceId": "offline:vie-airport",
            "pickupDatetime": PICKUP,
        },
    ),
    get("legacy distance without to", "/api/calculate-distance", {"from": "Hotel Sacher"}),
    get(
        "legacy distance to an unknown place",
        "/api/calculate-distance",
        {"from": "Hotel Sacher", "to": "Xyzzy Nowhere 999"},
    ),
    get("legacy places", "/api/places-autocomplete", {"input": "Sacher"}),
    get("legacy places too short", "/api/places-autocomplete", {"input": "S"}),
    get("legacy rating", "/api/google-rating"),
    post("legacy checkout", LEGACY_CHECKOUT, {"amount": AMOUNT, "bookingData": ride()}),
    post("legacy checkout minimal booking data", LEGACY_CHECKOUT, {"amount": AMOUNT, "bookingData": ROUTE}),
    post(
        "legacy checkout hourly",
        LEGACY_CHECKOUT,
        {"amount": 19500, "bookingData": ride(bookingType="hourly", durationHours=3)},
    ),
    post(
        "legacy checkout tour with extras",
        LEGACY_CHECKOUT,
        {
            "amount": 24900,
            "bookingData": ride(
                tourName="Vienna City Tour",
                waterChoice="still",
                flightNumber="OS 123",
                notes="Child seat",
                flightData={"arr": "10:05"},
                phone="+43 660 1234567",
            ),
        },
    ),
    post("legacy checkout wrong amount", LEGACY_CHECKOUT, {"amount": 100, "bookingData": ride()}),
    post("legacy checkout without amount", LEGACY_CHECKOUT, {"bookingData": ride()}),
    post(
        "legacy checkout without from",
        LEGACY_CHECKOUT,
        {"amount": AMOUNT, "bookingData": {"to": "Flughafen Wien"}},
    ),
    post(
        "legacy checkout within the lead time",
        LEGACY_CHECKOUT,
        {"amount": AMOUNT, "bookingData": ride(pickupDatetime=TOO_SOON)},
    ),
    post("legacy checkout not JSON", LEGACY_CHECKOUT, "{not json"),
    post(
        "legacy checkout without a payment provider",
        LEGACY_CHECKOUT,
        {"amount": AMOUNT, "bookingData": ride()},
        settings=NO_PROVIDER,
    ),
    *idempotent_checkouts("legacy", LEGACY_CHECKOUT, "replay-1", "Berta Idem"),
    post("legacy payment intent", "/api/create-payment-intent", {"amount": 5000}),
    post(
        "legacy payment intent without a payment provider",
        "/api/create-payment-intent",
        {"amount": 5000},
        settings=NO_PROVIDER,
    ),
    post("legacy payment intent zero", "/api/create-payment-intent", {"amount": 0}),
    get("legacy session data", "/api/get-session-data", {"session_id": "<session: legacy checkout>"}),
    get(
        "legacy session data hourly",
        "/api/get-session-data",
        {"session_id": "<session: legacy checkout hourly>"},
    ),
    get(
        "legacy session data tour",
        "/api/get-session-data",
        {"session_id": "<session: legacy checkout tour with extras>"},
    ),
    get("legacy session data unknown", "/api/get-session-data", {"session_id": "sbx_cs_unknown"}),
    get("legacy session data without session", "/api/get-session-data"),
    get("legacy unknown path", "/api/nothing-here"),
    Ask("legacy wrong method", "DELETE", "/api/calculate-distance"),
]

V1 = [
    get("v1 catalog", "/api/v1"),
    get("v1 route", "/api/v1/distance", ROUTE),
    get("v1 route with pickup", "/api/v1/distance", {**ROUTE, "pickupDatetime": PICKUP}),
    get("v1 route not found", "/api/v1/distance", {"from": "Hotel Sacher", "to": "Xyzzy Nowhere 999"}),
    get("v1 route without to", "/api/v1/distance", {"from": "Hotel Sacher"}),
    get("v1 places", "/api/v1/places", {"input": "Flughafen"}),
    get("v1 places in German", "/api/v1/places", {"input": "Bahnhof", "locale": "de"}),
    get("v1 places too short", "/api/v1/places", {"input": " a "}),
    get("v1 quote", "/api/v1/price", {"vehicleClass": "executive", "distanceKm": "20"}),
    get(
        "v1 quote outside Zone A with waiting",
        "/api/v1/price",
        {"vehicleClass": "first", "distanceKm": "123.4", "inZoneA": "false", "waitMinutes": "20"},
    ),
    get("v1 quote long distance van", "/api/v1/price", {"vehicleClass": "business-van", "distanceKm": "250"}),
    get("v1 quote minimum fare", "/api/v1/price", {"vehicleClass": "first", "distanceKm": "3"}),
    get(
        "v1 quote hourly",
        "/api/v1/price",
        {"vehicleClass": "executive", "distanceKm": "0", "bookingType": "hourly", "durationHours": "2.2"},
    ),
    get(
        "v1 quote hourly too short",
        "/api/v1/price",
        {"vehicleClass": "executive", "distanceKm": "0", "bookingType": "hourly", "durationHours": "1.5"},
    ),
    get(
        "v1 quote tour",
        "/api/v1/price",
        {"vehicleClass": "first", "distanceKm": "0", "tourSlug": "wachau-valley", "waitMinutes": "1"},
    ),
    get(
        "v1 quote unknown tour",
        "/api/v1/price",
        {"vehicleClass": "first", "distanceKm": "0", "tourSlug": "moon"},
    ),
    get("v1 quote unknown class", "/api/v1/price", {"vehicleClass": "limousine", "distanceKm": "20"}),
    get("v1 quote negative distance", "/api/v1/price", {"vehicleClass": "executive", "distanceKm": "-1"}),
    get("v1 quote not a number", "/api/v1/price", {"vehicleClass": "executive", "distanceKm": "far"}),
    get("v1 lead time available", "/api/v1/availability", {"pickupDatetime": PICKUP}),
    get("v1 lead time too soon", "/api/v1/availability", {"pickupDatetime": TOO_SOON}),
    get(
        "v1 lead time booked at night",
        "/api/v1/availability",
        {"pickupDatetime": "2026-11-21T07:00:00+01:00", "bookingDatetime": "2026-11-20T23:30:00+01:00"},
    ),
    get("v1 lead time in the past", "/api/v1/availability", {"pickupDatetime": "2026-11-19T10:00:00"}),
    get("v1 lead time too far ahead", "/api/v1/availability", {"pickupDatetime": "2028-01-01T10:00:00Z"}),
    get("v1 lead time not a date", "/api/v1/availability", {"pickupDatetime": "soon"}),
    get("v1 rating", "/api/v1/rating"),
    post("v1 checkout", CHECKOUT, {"amount": AMOUNT, "bookingData": ride()}, caller="agent"),
    post(
        "v1 checkout van",
        CHECKOUT,
        {"amount": 9300, "bookingData": ride(vehicleClass="business-van", flightNumber="OS 123")},
        caller="agent",
    ),
    *idempotent_checkouts("v1", CHECKOUT, "replay-2", "Carl Idem", caller="writer"),
    post("v1 checkout without a token", CHECKOUT, {"amount": AMOUNT, "bookingData": ride()}),
    post(
        "v1 checkout with an unknown token",
        CHECKOUT,
        {"amount": AMOUNT, "bookingData": ride()},
        caller=f"Bearer {UNKNOWN_TOKEN}",
    ),
    post(
        "v1 checkout with a malformed authorization",
        CHECKOUT,
        {"amount": AMOUNT, "bookingData": ride()},
        caller="Basic dXNlcjpwYXNz",
    ),
    post(
        "v1 checkout with a read token", CHECKOUT, {"amount": AMOUNT, "bookingData": ride()}, caller="reader"
    ),
    post("v1 checkout wrong amount", CHECKOUT, {"amount": 7300, "bookingData": ride()}, caller="writer"),
    post(
        "v1 checkout invalid booking data",
        CHECKOUT,
        {"amount": AMOUNT, "bookingData": ride(vehicleClass="limousine", email="not-an-address")},
        caller="writer",
    ),
    post(
        "v1 checkout within the lead time",
        CHECKOUT,
        {"amount": AMOUNT, "bookingData": ride(pickupDatetime=TOO_SOON)},
        caller="writer",
    ),
    post(
        "v1 checkout route not found",
        CHECKOUT,
        {"amount": AMOUNT, "bookingData": ride(to="Xyzzy Nowhere 999")},
        caller="writer",
    ),
    post("v1 checkout not JSON", CHECKOUT, "[1,", caller="writer"),
    post(
        "v1 checkout without a payment provider",
        CHECKOUT,
        {"amount": AMOUNT, "bookingData": ride()},
        caller="writer",
        settings=NO_PROVIDER,
    ),
    get("v1 read by its token", "/api/v1/bookings/<reference: v1 checkout>", caller="agent"),
    Pay("v1 checkout"),
    get("v1 read paid by its token", "/api/v1/bookings/<reference: v1 checkout>", caller="agent"),
    get("v1 read by e-mail", "/api/v1/bookings/<reference: v1 checkout van>", {"email": "anna@example.com"}),
    get(
        "v1 read with a wrong e-mail",
        "/api/v1/bookings/<reference: v1 checkout van>",
        {"email": "eve@example.com"},
    ),
    get("v1 read by another token", "/api/v1/bookings/<reference: v1 checkout van>", caller="reader"),
    get("v1 read with a write-only token", "/api/v1/bookings/<reference: v1 checkout van>", caller="writer"),
    get("v1 read unknown booking", "/api/v1/bookings/CB-NONE00", caller="agent"),
    get("v1 list", "/api/v1/bookings", caller="agent"),
    get("v1 list all a page at a time", "/api/v1/bookings", {"when": "all", "limit": "1"}, caller="agent"),
    get(
        "v1 list all, next page",
        "/api/v1/bookings",
        {"when": "all", "limit": "1", "cursor": "1795424400000000_<id: v1 checkout van>"},
        caller="agent",
    ),
    get("v1 list past", "/api/v1/bookings", {"when": "past"}, caller="agent"),
    get("v1 list bad when", "/api/v1/bookings", {"when": "someday"}, caller="agent"),
    get("v1 list without a token", "/api/v1/bookings"),
    get("v1 list with a write-only token", "/api/v1/bookings", caller="writer"),
    post(
        "v1 cancel with a read token", "/api/v1/bookings/<reference: v1 checkout>/cancel", {}, caller="reader"
    ),
    post("v1 cancel paid", "/api/v1/bookings/<reference: v1 checkout>/cancel", {}, caller="agent"),
    post("v1 cancel again", "/api/v1/bookings/<reference: v1 checkout>/cancel", {}, caller="agent"),
    post(
        "v1 cancel unpaid by e-mail",
        "/api/v1/bookings/<reference: v1 checkout van>/cancel",
        {"email": "anna@example.com"},
    ),
    post("v1 cancel unknown booking", "/api/v1/bookings/CB-NONE00/cancel", {}, caller="agent"),
    get("v1 unknown path", "/api/v1/nothing-here"),
    Ask("v1 wrong method", "DELETE", "/api/v1/price"),
    get(
        "v1 rate limit first",
        "/api/v1/price",
        {"vehicleClass": "first", "distanceKm": "20"},
        caller="limited",
    ),
    get(
        "v1 rate limit exceeded",
        "/api/v1/price",
        {"vehicleClass": "first", "distanceKm": "20"},
        caller="limited",
        keep_rate_window=True,
    ),
]

MCP_ASKS = [
    get("mcp metadata", MCP),
    get("mcp metadata with underscore names", MCP, {"toolNames": "underscore"}),
    get("mcp event stream refused", MCP, headers={"Accept": "text/event-stream"}),
    rpc(
        "mcp initialize",
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "replay", "version": "1"},
        },
    ),
    rpc(
        "mcp initialize unknown version",
        "initialize",
        {
            "protocolVersion": "1999-01-01",
            "capabilities": {},
            "clientInfo": {"name": "replay", "version": "1"},
        },
    ),
    post(
        "mcp initialized notification",
        MCP,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        caller="agent",
        headers={"MCP-Protocol-Version": "2025-06-18"},
    ),
    rpc("mcp ping", "ping", headers={"MCP-Protocol-Version": "2025-06-18"}),
    rpc("mcp tools/list", "tools/list", headers={"MCP-Protocol-Version": "2025-06-18"}),
    rpc("mcp tools/list underscore", "tools/list", path=f"{MCP}?toolNames=underscore"),
    modern("mcp server/discover", "server/discover"),
    modern(
        "mcp modern tools/call",
        "tools/call",
        {"name": "booking.calculate_price", "arguments": {"distanceKm": 20, "vehicleClass": "first"}},
    ),
    post(
        "mcp batch",
        MCP,
        [
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "booking.check_availability", "arguments": {"pickupDatetime": PICKUP}},
            },
        ],
        caller="agent",
    ),
    tool("mcp route", "booking.estimate_distance", {**ROUTE, "pickupDatetime": PICKUP}),
    tool("mcp route underscore name", "booking_estimate_distance", ROUTE),
    tool(
        "mcp route not found",
        "booking.estimate_distance",
        {"from": "Hotel Sacher", "to": "Xyzzy Nowhere 999"},
    ),
    tool("mcp route without to", "booking.estimate_distance", {"from": "Hotel Sacher"}),
    tool("mcp lead time", "booking.check_availability", {"pickupDatetime": PICKUP}),
    tool(
        "mcp lead time night rule",
        "booking.check_availability",
        {"pickupDatetime": "2026-11-21T07:00:00+01:00", "bookingDatetime": "2026-11-20T23:30:00+01:00"},
    ),
    tool("mcp quote", "booking.calculate_price", {"distanceKm": 21.8, "vehicleClass": "executive"}),
    tool(
        "mcp quote hourly",
        "booking.calculate_price",
        {"distanceKm": 0, "vehicleClass": "business-van", "bookingType": "hourly", "durationHours": 3.1},
    ),
    tool(
        "mcp quote outside Zone A",
        "booking.calculate_price",
        {"distanceKm": 80, "vehicleClass": "first", "inZoneA": False, "waitMinutes": 31},
    ),
    tool("mcp quote invalid", "booking.calculate_price", {"distanceKm": -1, "vehicleClass": "limousine"}),
    tool(
        "mcp quote unknown tour",
        "booking.calculate_price",
        {"distanceKm": 0, "vehicleClass": "first", "tourSlug": "moon"},
    ),
    tool("mcp places", "places.autocomplete", {"input": "Sacher"}),
    tool("mcp places too short", "places.autocomplete", {"input": "S"}),
    tool("mcp checkout", "booking.create_checkout", {"amount": AMOUNT, "bookingData": ride(locale="en")}),
    tool(
        "mcp checkout repeated",
        "booking.create_checkout",
        {"amount": AMOUNT, "bookingData": ride(locale="en")},
    ),
    tool("mcp checkout wrong amount", "booking.create_checkout", {"amount": 1, "bookingData": ride()}),
    tool(
        "mcp checkout missing pickup",
        "booking.create_checkout",
        {"amount": AMOUNT, "bookingData": {**ROUTE, "vehicleClass": "executive"}},
    ),
    tool(
        "mcp checkout with a field it does not take",
        "booking.create_checkout",
        {"amount": AMOUNT, "bookingData": ride(waterChoice="still")},
    ),
    tool(
        "mcp checkout within the lead time",
        "booking.create_checkout",
        {"amount": AMOUNT, "bookingData": ride(pickupDatetime=TOO_SOON)},
    ),
    tool(
        "mcp checkout with a read token",
        "booking.create_checkout",
        {"amount": AMOUNT, "bookingData": ride()},
        caller="reader",
    ),
    tool("mcp read", "booking.get_booking", {"reference": "<reference: mcp checkout>"}),
    tool("mcp read unknown", "booking.get_booking", {"reference": "CB-NONE00"}),
    tool("mcp list", "booking.list_bookings", {"when": "all"}),
    tool("mcp list with a write-only token", "booking.list_bookings", {"when": "all"}, caller="writer"),
    tool("mcp cancel", "booking.cancel_booking", {"reference": "<reference: mcp checkout>"}),
    tool(
        "mcp read a booking made through REST",
        "booking.get_booking",
        {"reference": "<reference: v1 checkout>"},
    ),
    tool("mcp cancel unknown", "booking.cancel_booking", {"reference": "CB-NONE00"}),
    tool(
        "mcp cancel with a read token",
        "booking.cancel_booking",
        {"reference": "<reference: mcp checkout>"},
        caller="reader",
    ),
    tool("mcp unknown tool", "booking.teleport", {}),
    rpc("mcp unknown method", "resources/list"),
    rpc("mcp without a token", "tools/list", caller=None),
    rpc("mcp with an unknown token", "tools/list", caller=f"Bearer {UNKNOWN_TOKEN}"),
    post("mcp not JSON", MCP, "{", caller="agent"),
    post("mcp not JSON content", MCP, "ping", caller="agent", headers={"Content-Type": "text/plain"}),
    post("mcp not JSON-RPC", MCP, {"hello": "world"}, caller="agent"),
    post(
        "mcp foreign origin",
        MCP,
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        caller="agent",
        headers={"Origin": "https://evil.example"},
    ),
]

STEPS = [*LEGACY, *V1, *MCP_ASKS]


class Placeholders:
    """Values this run made at random, each under a name that says what it is and which step made it, e.g.
    `<reference: v1 checkout>` for the reference of the booking the step "v1 checkout" stored."""

    def __init__(self):
        self.values: dict[str, str] = {}  # placeholder → this run's value
        self.seen: set[int] = set()

    def learn(self, step: str) -> None:
        made = list(Booking.objects.exclude(pk__in=self.seen).order_by("pk"))
        assert len(made) <= 1, f"{step} stored {len(made)} bookings: name them apart"
        for booking in made:
            self.seen.add(booking.pk)
            signed = signing.Signer(salt=MANAGE_SALT).sign(booking.reference)
            self.values |= {
                f"<reference: {step}>": booking.reference,
                f"<session: {step}>": ledger_rows.session_of(booking),
                f"<manage signature: {step}>": signed.rsplit(":", 1)[1],
                f"<id: {step}>": str(booking.pk),
            }

    def learn_payment(self, step: str) -> None:
        booking = Booking.objects.get(reference=self.values[f"<reference: {step}>"])
        self.values[f"<payment intent: {step}>"] = own_intent(booking)

    def fill(self, text: str) -> str:
        for name, value in self.values.items():
            text = text.replace(name, value)
        return text

    def hide(self, text: str) -> str:
        ids = {value: name for name, value in self.values.items() if name.startswith("<id: ")}
        text = CURSOR.sub(lambda cursor: f"{cursor[1]}_{ids.get(cursor[2], cursor[2])}", text)
        for name, value in sorted(self.values.items(), key=lambda item: -len(item[1])):
            if value and not name.startswith("<id: "):
                text = text.replace(value, name)
        return CLIENT_SECRET.sub("<sandbox client secret>", text)


def authorization(ask: Ask) -> str | None:
    if ask.caller is None:
        return None
    return ask.caller if " " in ask.caller else f"Bearer {TOKENS[ask.caller][0]}"


def send(client, ask: Ask, placeholders: Placeholders) -> dict:
    content_type = ask.headers.get("Content-Type", "application/json")
    headers = {
        "HTTP_" + name.upper().replace("-", "_"): value
        for name, value in ask.headers.items()
        if name != "Content-Type"
    }
    if (sent_authorization := authorization(ask)) is not None:
        headers["HTTP_AUTHORIZATION"] = sent_authorization
    payload = ask.payload()
    url = ask.url(placeholders.fill)
    with override_settings(**ask.settings):
        if payload is None:
            response = client.generic(ask.method, url, **headers)
        else:
            response = client.generic(
                ask.method, url, placeholders.fill(payload), content_type=content_type, **headers
            )
    placeholders.learn(ask.name)
    request = {"method": ask.method, "url": ask.url()}
    if sent_authorization:
        request["authorization"] = sent_authorization
    request.update({name: value for name, value in ask.headers.items()})
    if payload is not None:
        request["body"] = payload
    if ask.settings:
        request["settings"] = ask.settings
    body = placeholders.hide(response.content.decode())
    headers = {name: placeholders.hide(value) for name, value in sorted(response.headers.items())}
    if "Content-Length" in headers:
        # Checked against the bytes sent, then recorded as the hidden body's: a placeholder stands for a
        # database id whose digits vary with the tests that ran before.
        assert int(headers["Content-Length"]) == len(response.content), ask.name
        headers["Content-Length"] = str(len(body.encode()))
    return {
        "name": ask.name,
        "request": request,
        "status": response.status_code,
        "headers": headers,
        "body": body,
    }


def pay(client, step: str, placeholders: Placeholders) -> None:
    session = placeholders.values[f"<session: {step}>"]
    paid = client.post(f"/booking/sandbox/{session}", {"action": "pay"})
    assert paid.status_code == 302, paid.content
    placeholders.learn_payment(step)


def store_tokens() -> None:
    for name, (plain, scopes, rate_limit) in TOKENS.items():
        ApiToken.objects.create(
            name=f"replay {name}",
            prefix=plain[:PREFIX_LENGTH],
            digest=digest_of(plain),
            scopes=scopes,
            rate_limit=rate_limit,
        )


def replay(client, capture_commits) -> list[dict]:
    answers, placeholders = [], Placeholders()
    with time_machine.travel(NOW, tick=False):
        store_tokens()
        for step in STEPS:
            if isinstance(step, Pay):
                with capture_commits(execute=True):
                    pay(client, step.booking_made_by, placeholders)
                continue
            if not step.keep_rate_window:
                clear_shared_cache()  # each answer's rate-limit headers independent of the steps before
            with capture_commits(execute=True):  # the jobs a commit enqueues run, as a worker's would
                answers.append(send(client, step, placeholders))
    return answers


def readable(answer: dict) -> list[str]:
    """An answer as lines to compare: the JSON body pretty-printed after the exact text, so a diff shows
    which member changed."""
    lines = json.dumps({key: value for key, value in answer.items() if key != "body"}, indent=2).splitlines()
    lines.append(f"body: {answer['body']}")
    with contextlib.suppress(ValueError):  # a body that is not JSON shows as its text alone
        lines += json.dumps(json.loads(answer["body"]), indent=2, ensure_ascii=False).splitlines()
    return lines


def expected_on(backend: str, recorded: dict) -> dict:
    """The recorded answer as this database backend gives it: the common (SQLite's) answer with the
    members a backend answers differently, recorded under its name."""
    common = {key: value for key, value in recorded.items() if key not in OWN_ANSWERS}
    return {**common, **recorded.get(backend, {})}


def record(backend: str, answers: list[dict]) -> None:
    """SQLite records the common answers and keeps PostgreSQL's own; PostgreSQL records only the members
    it answers differently. Record on SQLite first."""
    earlier = {item["name"]: item for item in json.loads(RECORDING.read_text())} if RECORDING.exists() else {}
    entries = []
    for answer in answers:
        before = earlier.get(answer["name"], {})
        own = {key: value for key, value in before.items() if key in OWN_ANSWERS and key != backend}
        if backend == "sqlite":
            entries.append({**answer, **own})
            continue
        common = expected_on("sqlite", before)
        differing = {key: value for key, value in answer.items() if common.get(key) != value}
        entries.append({**common, **own, **({backend: differing} if differing else {})})
    RECORDING.write_text(json.dumps(entries, indent=2, ensure_ascii=False) + "\n")


@pytest.mark.django_db
def test_every_contract_answer_is_the_recorded_one(client, settings, django_capture_on_commit_callbacks):
    settings.PAYMENT_PROVIDER = "sandbox"
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"
    answers = replay(client, django_capture_on_commit_callbacks)
    backend = connection.vendor
    if os.environ.get("RECORD") == "1":
        record(backend, answers)
        return
    recorded = {answer["name"]: answer for answer in json.loads(RECORDING.read_text())}
    assert [answer["name"] for answer in answers] == list(recorded), "the steps differ from the recording's"
    differences = []
    for answer in answers:
        expected = expected_on(backend, recorded[answer["name"]])
        if answer != expected:
            diff = difflib.unified_diff(readable(expected), readable(answer), "recorded", "now", lineterm="")
            differences.append(f"=== {answer['name']} ({backend})\n" + "\n".join(diff))
    if differences:
        pytest.fail("\n\n".join(differences), pytrace=False)
