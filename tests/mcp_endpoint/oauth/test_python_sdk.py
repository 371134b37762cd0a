"""The official MCP Python SDK's OAuth client (`mcp.client.auth.OAuthClientProvider`, an httpx auth flow)
against a live gunicorn and job worker: the whole flow from the 401 to a booking in the traveller's name, the
traveller's bookings listed, a refresh when the short-lived access token runs out; and, through the same
client, a traveller's token that can neither read nor cancel another traveller's booking."""

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from tests.mcp_endpoint.oauth.browser import Browser
from tests.mcp_endpoint.oauth.conftest import ACCESS_TOKEN_SECONDS
from tests.mcp_endpoint.oauth.harness import OAuthLive
from tests.mcp_endpoint.oauth.rides import checkout_arguments

REDIRECT = "http://127.0.0.1:33419/callback"


@dataclass
class Memory:
    """The SDK's TokenStorage, in memory; it keeps every token set it was given."""

    tokens: OAuthToken | None = None
    client: OAuthClientInformationFull | None = None
    saved: list[OAuthToken] = field(default_factory=list)

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens
        self.saved.append(tokens)

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


@dataclass
class Traveller:
    email: str
    browser: Browser
    memory: Memory = field(default_factory=Memory)
    callbacks: list[dict] = field(default_factory=list)


@asynccontextmanager
async def signed_in(live: OAuthLive, traveller: Traveller, **provider_options) -> AsyncIterator[Client]:
    """An MCP client whose OAuth provider sends `traveller`'s browser through sign-in and consent."""
    redirected: list[str] = []

    async def redirect_handler(url: str) -> None:
        redirected.append(await asyncio.to_thread(traveller.browser.authorize, url, email=traveller.email))

    async def callback_handler() -> AuthorizationCodeResult:
        answer = {key: values[0] for key, values in parse_qs(urlsplit(redirected.pop()).query).items()}
        traveller.callbacks.append(answer)
        return AuthorizationCodeResult(code=answer["code"], state=answer.get("state"), iss=answer.get("iss"))

    provider = OAuthClientProvider(
        server_url=live.mcp_url,
        client_metadata=OAuthClientMetadata(
            client_name="Chauffeur proof (Python SDK)",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            token_endpoint_auth_method="none",
        ),
        storage=traveller.memory,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        **provider_options,
    )
    async with (
        httpx2.AsyncClient(auth=provider, timeout=60) as http,
        Client(streamable_http_client(live.mcp_url, http_client=http), mode="legacy") as client,
    ):
        yield client


def play(live: OAuthLive, traveller: Traveller, scenario, **provider_options):
    async def session():
        async with signed_in(live, traveller, **provider_options) as client:
            return await scenario(client)

    return asyncio.run(session())


def test_the_python_sdk_signs_a_traveller_in_books_lists_and_refreshes(live):
    traveller = Traveller("grace.py@example.com", Browser(live))
    checkout = checkout_arguments(live.base, "Grace Traveller")

    async def scenario(client: Client):
        tools = [tool.name for tool in (await client.list_tools()).tools]
        booked = await client.call_tool("booking.create_checkout", checkout)
        listed = await client.call_tool("booking.list_bookings", {})
        await asyncio.sleep(ACCESS_TOKEN_SECONDS + 1)  # the access token has run out: the SDK refreshes first
        again = await client.call_tool("booking.list_bookings", {"when": "all"})
        return tools, booked, listed, again

    tools, booked, listed, again = play(live, traveller, scenario)

    assert "booking.list_bookings" in tools and "booking.create_checkout" in tools
    assert not booked.is_error, booked
    reference = booked.structured_content["reference"]
    assert [b["reference"] for b in listed.structured_content["bookings"]] == [reference]
    assert not again.is_error and [b["reference"] for b in again.structured_content["bookings"]] == [
        reference
    ]
    (callback,) = traveller.callbacks  # one authorization; the SDK validated state and iss itself
    assert callback["iss"] == live.base
    first, second = traveller.memory.saved
    assert first.access_token != second.access_token and first.refresh_token != second.refresh_token
    assert traveller.memory.client.client_id and not traveller.memory.client.client_id.startswith("https://")
    email = live.shell(
        f"from booking.models import Booking; print(Booking.objects.get(reference={reference!r}).email)"
    )
    assert email == traveller.email


def test_a_travellers_token_cannot_read_or_cancel_another_travellers_booking(live):
    owner = Traveller("owner.py@example.com", Browser(live))
    other = Traveller("other.py@example.com", Browser(live))
    checkout = checkout_arguments(live.base, "Owner Traveller")

    async def book(client: Client):
        return (await client.call_tool("booking.create_checkout", checkout)).structured_content["reference"]

    reference = play(live, owner, book)

    async def intrude(client: Client):
        by_reference = {"reference": reference}
        with_email = {"reference": reference, "email": owner.email}  # knowing the address does not help
        return (
            await client.call_tool("booking.get_booking", by_reference),
            await client.call_tool("booking.get_booking", with_email),
            await client.call_tool("booking.cancel_booking", by_reference),
            await client.call_tool("booking.cancel_booking", with_email),
            await client.call_tool("booking.list_bookings", {"when": "all"}),
        )

    *refused, listed = play(live, other, intrude)

    for answer in refused:
        assert answer.is_error, answer
        # the same answer as for a reference that does not exist: nothing tells the booking is there
        assert json.loads(answer.content[0].text)["code"] == "not_found", answer.content[0].text
    assert listed.structured_content["bookings"] == []
    status = live.shell(
        f"from booking.models import Booking; print(Booking.objects.get(reference={reference!r}).status)"
    )
    assert status == "pending_payment"  # not cancelled


def test_the_python_sdk_names_its_client_id_metadata_document_instead_of_registering(live, documents):
    client_id = documents.publish(
        "/py-client.json",
        client_name="Chauffeur proof (Python SDK, metadata document)",
        redirect_uris=[REDIRECT],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    traveller = Traveller("cimd.py@example.com", Browser(live))

    async def scenario(client: Client):
        return await client.call_tool("booking.list_bookings", {})

    listed = play(live, traveller, scenario, client_metadata_url=client_id)

    assert not listed.is_error and listed.structured_content["bookings"] == []
    assert traveller.memory.client.client_id == client_id
    assert "/py-client.json" in documents.requests
    assert "Chauffeur proof (Python SDK, metadata document)" in traveller.browser.consent_page
    registration = live.shell(
        f"from oauth.models import OAuthClient; print(OAuthClient.objects.get(client_id={client_id!r}).registration)"
    )
    assert registration == "metadata_document"
