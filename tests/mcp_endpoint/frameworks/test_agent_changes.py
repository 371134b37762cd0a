"""An OpenAI Agents loop (openai-agents, its MCP server over streamable HTTP, a stand-in model that plays a
script) changing a paid booking as a traveller would through it: book, then quote a change, read the
difference in the agent's words, confirm it; first a later pickup from another address in a dearer class
(paid through the link), then back to a cheaper class (refunded). After each step the fake Stripe's books and
ours agree. A quote used once, confirmed again, is refused in words the model reads, the booking untouched."""

import asyncio
import json

import pytest
from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp
from django.utils import timezone
from openai import AsyncOpenAI

from access import tokens
from tests.booking.test_checkout import ride, server_amount
from tests.mcp_endpoint.frameworks.model import FINAL_PREFIX, stand_in_model
from tests.mcp_endpoint.test_sdk_changes import books_agree, dearer_then_cheaper
from tests.payments import fake_stripe

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)  # seeded tariffs kept
set_tracing_disabled(True)  # it would upload to OpenAI


def test_an_openai_agent_moves_the_pickup_changes_the_address_and_the_class_and_back(
    live_server, settings, client
):
    with fake_stripe.installed(settings) as stripe, stand_in_model() as model:
        settings.ALLOWED_HOSTS = ["*"]
        _token, plain = tokens.issue_token(name="agent", scopes=["booking.read", "booking.write"])

        async def run(prompt: str) -> str:
            params = {
                "url": f"{live_server.url}/api/mcp?toolNames=underscore",
                "headers": {"Authorization": f"Bearer {plain}"},
            }
            openai = AsyncOpenAI(base_url=model.base_url, api_key="stand-in")
            async with MCPServerStreamableHttp(
                params=params, name="chauffeur", client_session_timeout_seconds=30
            ) as chauffeur:
                agent = Agent(
                    name="chauffeur",
                    instructions="Change rides.",
                    model=OpenAIChatCompletionsModel(model="stand-in", openai_client=openai),
                    mcp_servers=[chauffeur],
                )
                return (await Runner.run(agent, prompt, max_turns=4)).final_output

        def say(tool: str, arguments: dict) -> dict:
            """The traveller's one message; what they read back is the tool's answer as the agent quotes it."""
            answered = model.requests
            final = asyncio.run(run(f"CALL {tool} {json.dumps(arguments)}"))
            assert model.requests == answered + 2  # the call, then the words: no retry in between
            assert final.startswith(FINAL_PREFIX), final
            return json.loads(final.removeprefix(FINAL_PREFIX))

        data = ride(vehicleClass="executive")
        started = say("booking_create_checkout", {"amount": server_amount(client, data), "bookingData": data})
        reference = started["reference"]
        stripe.pay(client, started["sessionId"])
        pickup = timezone.localtime(books_agree(stripe, reference).pickup_at).isoformat()

        def change(wanted: dict) -> tuple[dict, dict]:
            shown = say("booking_quote_change", {"reference": reference, **wanted})
            made = say("booking_change_booking", {"reference": reference, "changeQuoteId": shown["id"]})
            return shown, made

        first = dearer_then_cheaper(client, stripe, reference, pickup, change)
        cheaper = books_agree(stripe, reference)

        # openai-agents passes a refused call's text alone (isError dropped): the code must be in the words
        refused = say("booking_change_booking", {"reference": reference, "changeQuoteId": first["id"]})
        assert (refused["status"], refused["code"]) == (409, "stale_change_quote"), refused
        after = books_agree(stripe, reference)
        kept = ("amount_cents", "pickup_at", "vehicle_class", "origin")
        assert [getattr(after, name) for name in kept] == [getattr(cheaper, name) for name in kept]
        assert stripe.open_sessions() == [] and stripe.net() == after.amount_cents
