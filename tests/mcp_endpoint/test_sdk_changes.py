"""The official MCP Python SDK changing a paid booking as an agent would, against the service running with a
Stripe that keeps its own books (tests/payments/fake_stripe.py): quote the change, show the difference,
confirm it; first a later pickup from another address in a dearer class (paid through the link the change
answers), then back to a cheaper class (refunded to the payment). After each step Stripe's books and ours
agree, and the documents add up."""

import asyncio
from datetime import datetime, timedelta

import httpx2
import pytest
from django.utils import timezone
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from access import tokens
from booking.models import Booking
from payments import document_balance, ledger, refunds
from tests.booking.test_checkout import ride, server_amount
from tests.payments import fake_stripe

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)  # seeded tariffs kept


def books_agree(stripe: fake_stripe.FakeStripe, reference: str) -> Booking:
    booking = Booking.objects.get(reference=reference)
    ours = ledger.received_cents(booking, on_account=False) - refunds.refunded_cents(booking)
    assert stripe.net() == ours
    assert document_balance.balance(booking).adds_up
    return booking


def later(pickup: str, hours: int) -> str:
    return (datetime.fromisoformat(pickup) + timedelta(hours=hours)).isoformat()


def dearer_then_cheaper(client, stripe: fake_stripe.FakeStripe, reference: str, pickup: str, change) -> dict:
    """The agent's two changes of a paid booking through `change(wanted) -> (quoted, made)`: a later pickup
    from another address in a dearer class, paid through the link, then a cheaper class, refunded; the books
    agreeing after each. Answers the first quote."""
    first, made = change(
        {"pickupDatetime": later(pickup, 1), "from": "Wien Hauptbahnhof", "vehicleClass": "first"}
    )
    assert first["settlement"] == "pay" and made["settlement"] == "pay" and first["differenceEur"] > 0
    assert made["booking"]["from"] == "Wien Hauptbahnhof" and made["booking"]["vehicleClass"] == "first"
    (link,) = stripe.open_sessions()
    assert stripe.sessions[link].amount == round(first["settledEur"] * 100)
    stripe.pay(client, link)  # the traveller pays the difference through the link
    dearer = books_agree(stripe, reference)
    assert dearer.amount_cents == sum(stripe.charged.values())

    shown, made = change({"vehicleClass": "executive"})
    assert shown["settlement"] == "refund" and made["settlement"] == "refund" and shown["differenceEur"] < 0
    assert sum(stripe.refunded.values()) == round(shown["settledEur"] * 100)
    cheaper = books_agree(stripe, reference)
    assert cheaper.amount_cents == stripe.net()
    assert (cheaper.origin, cheaper.vehicle_class) == ("Wien Hauptbahnhof", "executive")
    assert timezone.localtime(cheaper.pickup_at).isoformat() == later(pickup, 1)
    return first


def test_an_agent_moves_the_pickup_changes_the_address_and_the_class_and_back(live_server, settings, client):
    with fake_stripe.installed(settings) as stripe:
        settings.ALLOWED_HOSTS = ["*"]
        _token, plain = tokens.issue_token(name="agent", scopes=["booking.read", "booking.write"])
        data = ride(vehicleClass="executive")
        amount = server_amount(client, data)

        async def agent(step):
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {plain}"}) as http:
                transport = streamable_http_client(f"{live_server.url}/api/mcp", http_client=http)
                async with Client(transport, mode="legacy") as session:
                    return await step(session)

        async def book(session: Client):
            return await session.call_tool("booking.create_checkout", {"amount": amount, "bookingData": data})

        started = asyncio.run(agent(book))
        assert started.is_error is False, started.structured_content
        reference = started.structured_content["reference"]
        stripe.pay(client, started.structured_content["sessionId"])
        paid = books_agree(stripe, reference)
        pickup = timezone.localtime(paid.pickup_at).isoformat()

        def change(wanted: dict):
            async def quote_then_confirm(session: Client):
                quoted = await session.call_tool("booking.quote_change", {"reference": reference, **wanted})
                assert quoted.is_error is False, quoted.structured_content
                # what the agent shows the traveller before they agree
                shown = {
                    key: quoted.structured_content[key]
                    for key in ("differenceEur", "settlement", "settledEur")
                }
                made = await session.call_tool(
                    "booking.change_booking",
                    {"reference": reference, "changeQuoteId": quoted.structured_content["id"]},
                )
                assert made.is_error is False, made.structured_content
                return shown, made.structured_content

            return asyncio.run(agent(quote_then_confirm))

        dearer_then_cheaper(client, stripe, reference, pickup, change)
