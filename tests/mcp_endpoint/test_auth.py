"""Who may talk to the agent endpoint /api/mcp (docs/decisions.md §10): a live bearer token on every
message, the scope each tool needs (401 and 403 with their challenges), and a rate limit per token."""

from datetime import timedelta

import pytest
from django.utils import timezone

from access import tokens
from access.models import ApiToken
from booking.models import Booking
from oauth.models import OAuthClient, OAuthGrant
from quote_requests.models import QuoteRequest
from tests.conftest import bearer, start_of_window
from tests.mcp_endpoint.mcp import (
    TOOL_NAMES,
    VALID_ARGUMENTS,
    WRITE_TOOLS,
    asked_by,
    call,
    checkout_arguments,
    error_of,
    post,
    result_of,
    rpc,
    tool_result,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


# --- the token ------------------------------------------------------------------------------------


def test_a_message_without_a_token_is_401_naming_its_id(client):
    response = rpc(client, {}, "tools/list", request_id="req-9")
    data = error_of(response, 401, -32010, request_id="req-9")
    assert response["WWW-Authenticate"] == (
        'Bearer realm="chauffeur", resource_metadata="https://chauffeur.test/.well-known/oauth-protected-resource/api/mcp", '
        'scope="booking.read booking.write"'
    )
    assert data["code"] == "unauthorized" and data["hint"]
    # Not JSON, too large to read for an id, a batch: still the 401, naming no id (null).
    error_of(post(client, "{" * 100_000), 401, -32010)
    error_of(post(client, '{"jsonrpc": "2.0", "id": 5, '), 401, -32010)
    error_of(
        post(client, {"jsonrpc": "2.0", "id": 6, "method": "ping", "params": {"pad": "x" * 70_000}}),
        401,
        -32010,
    )
    error_of(post(client, [{"jsonrpc": "2.0", "id": 7, "method": "ping"}]), 401, -32010)


@pytest.mark.parametrize("state", ["unknown", "revoked", "expired"])
def test_a_dead_token_is_401_invalid_token(client, state):
    token, plain = tokens.issue_token(name="agent", scopes=["booking.read"])
    if state == "unknown":
        plain = plain[:-4] + "AAAA"
    elif state == "revoked":
        tokens.revoke(token)
    else:
        token.expires_at = timezone.now() - timedelta(seconds=1)
        token.save()
    response = rpc(client, {"HTTP_AUTHORIZATION": f"Bearer {plain}"}, "ping", request_id=3)
    assert error_of(response, 401, -32010, request_id=3)["code"] == "unauthorized"
    assert response["WWW-Authenticate"] == (
        'Bearer realm="chauffeur", error="invalid_token", '
        'resource_metadata="https://chauffeur.test/.well-known/oauth-protected-resource/api/mcp", scope="booking.read booking.write"'
    )


def test_notifications_need_a_token_too(client):
    response = post(client, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    error_of(response, 401, -32010)


def test_a_used_token_records_its_last_use(client, agent):
    result_of(rpc(client, agent, "ping"))
    token = tokens.authenticate(agent["HTTP_AUTHORIZATION"].removeprefix("Bearer "))
    assert token.last_used_at is not None


# --- scopes ---------------------------------------------------------------------------------------


def test_any_valid_token_may_list_the_tools(client):
    assert len(result_of(rpc(client, bearer("booking.write"), "tools/list"))["tools"]) == len(TOOL_NAMES)


BOOKING_TOOLS = (
    "booking.get_booking",
    "booking.cancel_booking",
    "booking.quote_change",
    "booking.change_booking",
)


@pytest.mark.parametrize("scopes", [("booking.read",), ("booking.write",), ("booking.read", "booking.write")])
@pytest.mark.parametrize("tool", TOOL_NAMES)
def test_the_scope_matrix(client, agent, tool, scopes):
    if tool in BOOKING_TOOLS:  # a booking the traveller's e-mail opens
        checkout = tool_result(
            call(client, agent, "booking.create_checkout", checkout_arguments(client, agent))
        )
        arguments = {"reference": checkout["structuredContent"]["reference"], "email": "anna@example.com"}
        if tool in ("booking.quote_change", "booking.change_booking"):  # an hour later: the same price
            booked = Booking.objects.get(reference=arguments["reference"])
            moved = {"pickupDatetime": (booked.pickup_at + timedelta(hours=1)).isoformat()}
            if tool == "booking.quote_change":
                arguments |= moved
            else:
                quoted = tool_result(call(client, agent, "booking.quote_change", arguments | moved))
                arguments |= {"changeQuoteId": quoted["structuredContent"]["id"]}
    elif tool == "booking.create_checkout":
        arguments = checkout_arguments(client, agent)
    else:
        arguments = VALID_ARGUMENTS.get(tool, {})  # booking.list_extras takes none
    headers = bearer(*scopes)
    if tool == "booking.get_quote":  # a request this token made
        made = tokens.authenticate(headers["HTTP_AUTHORIZATION"].removeprefix("Bearer "))
        arguments = {"reference": asked_by(made).reference}
    before = set(Booking.objects.values_list("reference", "status"))
    asked_before = QuoteRequest.objects.count()
    needed = "booking.write" if tool in WRITE_TOOLS else "booking.read"
    response = call(client, headers, tool, arguments, request_id=11)
    if needed in scopes:
        assert tool_result(response)["isError"] is False
        after = set(Booking.objects.values_list("reference", "status"))
        if tool == "booking.create_checkout":
            assert len(after - before) == 1 and before <= after
        elif tool == "booking.cancel_booking":
            assert after == {(arguments["reference"], "cancelled")}
        else:
            assert after == before
        assert QuoteRequest.objects.count() == asked_before + (tool == "booking.request_quote")
        return
    data = error_of(response, 403, -32011, request_id=11)
    assert (data["code"], data["requiredScope"]) == ("insufficient_scope", needed)
    # the needed scope and the one the token holds: asking again for these loses nothing (step-up)
    assert response["WWW-Authenticate"] == (
        'Bearer error="insufficient_scope", scope="booking.read booking.write", '
        'resource_metadata="https://chauffeur.test/.well-known/oauth-protected-resource/api/mcp"'
    )
    assert set(Booking.objects.values_list("reference", "status")) == before
    assert QuoteRequest.objects.count() == asked_before


# --- rate limit -----------------------------------------------------------------------------------


def _autocomplete(client, headers, request_id: int | str = 7):
    return call(client, headers, "places.autocomplete", {"input": "Sacher"}, request_id=request_id)


def rate_limited(response, request_id) -> tuple[int, dict]:
    """A 429 as every rate-limited message gets it: the seconds to wait in Retry-After, the error's
    message, its data and the status line's reason phrase; returns them and error.data."""
    data = error_of(response, 429, -32013, request_id=request_id)
    seconds = int(response["Retry-After"])
    assert 1 <= seconds <= 60 and data["retryAfter"] == seconds
    assert response.json()["error"]["message"] == f"Rate limit reached: try again in {seconds} seconds."
    assert response.reason_phrase == f"Too Many Requests: retry in {seconds} seconds"
    assert (data["code"], data["status"]) == ("rate_limited", 429)
    assert "Retry-After" not in data["hint"] and "retryAfter" in data["hint"]
    return seconds, data


def test_the_endpoint_is_rate_limited_per_token_and_a_call_over_it_is_told_when_to_call_again(client):
    start_of_window(client)
    limited = bearer("booking.read", rate_limit=2)
    for _ in range(2):
        response = _autocomplete(client, limited)
        assert tool_result(response)["isError"] is False
        assert response["RateLimit-Policy"] == '"default";q=2;w=60'
    refused = _autocomplete(client, limited, request_id="call-3")
    rate_limited(refused, "call-3")
    assert refused["RateLimit"].startswith('"default";r=0;')
    assert tool_result(_autocomplete(client, bearer("booking.read")))["isError"] is False  # another token


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_a_call_over_the_limit_is_429_in_every_revision(client, version):
    start_of_window(client)
    limited = bearer("booking.read", rate_limit=1)
    meta = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": "places.autocomplete", "arguments": {"input": "Sacher"}, "_meta": meta}
    headers = {
        **limited,
        "HTTP_MCP_PROTOCOL_VERSION": version,
        "HTTP_MCP_METHOD": "tools/call",
        "HTTP_MCP_NAME": "places.autocomplete",
    }
    assert tool_result(rpc(client, headers, "tools/call", params))["isError"] is False
    rate_limited(rpc(client, headers, "tools/call", params, request_id=2), 2)


def test_other_messages_over_the_limit_are_429_naming_their_id(client, settings):
    settings.MCP_HOUSEKEEPING_RATE_LIMIT = 1
    start_of_window(client)
    limited = bearer("booking.read", rate_limit=1)
    assert result_of(rpc(client, limited, "tools/list", request_id="list-1"))["tools"]
    rate_limited(rpc(client, limited, "tools/list", request_id="list-2"), "list-2")


SESSION_PER_CALL = [  # what langchain-mcp-adapters sends before each tools/call
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "langchain", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def test_protocol_housekeeping_has_its_own_budget_so_a_session_per_call_meets_the_limit_at_the_same_call(
    client, settings
):
    settings.MCP_HOUSEKEEPING_RATE_LIMIT = 20
    start_of_window(client)
    limited = bearer("booking.read", rate_limit=4)
    for _ in range(4):
        for message in SESSION_PER_CALL:
            response = post(client, message, **limited)
            assert response.status_code in (200, 202), response.content
            assert '"housekeeping";q=20;w=60' in response["RateLimit-Policy"]
        assert tool_result(_autocomplete(client, limited))["isError"] is False
    rate_limited(_autocomplete(client, limited), 7)  # the fifth call, as without the housekeeping
    assert result_of(rpc(client, limited, "tools/list"))["tools"]  # housekeeping still answered
    for _ in range(20 - 13):
        assert result_of(rpc(client, limited, "ping")) == {}
    refused = rpc(client, limited, "ping")
    rate_limited(refused, 1)
    assert refused["RateLimit"].startswith('"housekeeping";r=0')


def test_a_batch_with_a_call_in_it_counts_every_message_as_billable(client, settings):
    settings.MCP_HOUSEKEEPING_RATE_LIMIT = 100
    start_of_window(client)
    limited = bearer("booking.read", rate_limit=3)
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "places.autocomplete", "arguments": {"input": "Sacher"}},
        },
    ]
    response = post(client, batch, HTTP_MCP_PROTOCOL_VERSION="2025-03-26", **limited)
    assert response.status_code == 200 and len(response.json()) == 2
    assert response["RateLimit"].startswith('"default";r=1')
    assert tool_result(_autocomplete(client, limited))["isError"] is False
    rate_limited(_autocomplete(client, limited), 7)


def test_a_strangers_housekeeping_counts_by_address_as_before(client, settings):
    settings.MCP_HOUSEKEEPING_RATE_LIMIT = 100
    settings.API_RATE_LIMIT_REQUESTS = 2
    start_of_window(client)
    for _ in range(2):
        error_of(rpc(client, {}, "ping"), 401, -32010, request_id=1)
    error_of(rpc(client, {}, "ping"), 429, -32013, request_id=1)


def _oauth_token(resource: str, **changes) -> dict[str, str]:
    """An OAuth access token of a traveller's grant for `resource` (an ApiToken tied to the grant)."""
    client = OAuthClient.objects.create(client_id=f"dyn_{resource[-3:]}", registration="dynamic", name="Bot")
    grant = OAuthGrant.objects.create(
        client=client,
        subject="traveller",
        traveller_email="anna@example.com",
        scopes=["booking.read"],
        resource=f"https://chauffeur.test{resource}",
    )
    plain, prefix, digest = tokens.new_secret()
    fields = {"expires_at": timezone.now() + timedelta(hours=1), **changes}
    ApiToken.objects.create(
        name="OAuth: Bot",
        prefix=prefix,
        digest=digest,
        scopes=["booking.read"],
        grant=grant,
        acts_for="anna@example.com",
        audience=grant.resource,
        **fields,
    )
    return {"HTTP_AUTHORIZATION": f"Bearer {plain}"}


CHALLENGE = (
    'Bearer realm="chauffeur", error="invalid_token", '
    'resource_metadata="https://chauffeur.test/.well-known/oauth-protected-resource/api/mcp", '
    'scope="booking.read booking.write"'
)


@pytest.mark.parametrize("state", ["expired", "unknown", "for another resource"])
def test_a_dead_token_behind_an_address_that_spent_its_budget_hears_401_invalid_token_never_429(
    client, settings, state
):
    settings.API_RATE_LIMIT_REQUESTS = 3
    settings.MCP_HOUSEKEEPING_RATE_LIMIT = 3
    start_of_window(client)
    for _ in range(3):  # other anonymous callers behind the same address spend its budget
        error_of(rpc(client, {}, "ping"), 401, -32010, request_id=1)
    error_of(rpc(client, {}, "ping"), 429, -32013, request_id=1)
    dead = {
        "expired": lambda: _oauth_token("/api/mcp", expires_at=timezone.now() - timedelta(seconds=1)),
        "unknown": lambda: {"HTTP_AUTHORIZATION": "Bearer cbt_" + "A" * 43},
        "for another resource": lambda: _oauth_token("/api/v1"),
    }[state]()
    for _ in range(5):  # however often it tries, it is told to refresh
        response = call(client, dead, "places.autocomplete", {"input": "Sacher"})
        data = error_of(response, 401, -32010, request_id=7)
        assert data["code"] == "unauthorized" and "Retry-After" not in response
        assert response["WWW-Authenticate"] == CHALLENGE
    # a live token still has its own budget, apart from the address's
    assert tool_result(_autocomplete(client, bearer("booking.read")))["isError"] is False
