"""A checkout retried through MCP after the client refreshed its token answers the same booking: OAuth
retries count per grant, like the rate limit."""

import pytest

from access import tokens
from access.models import ApiToken
from booking.models import Booking
from oauth.models import OAuthGrant
from tests.mcp_endpoint.mcp import call, checkout_arguments, tool_result
from tests.oauth.conftest import MCP

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


def oauth_bearer(grant: OAuthGrant) -> dict[str, str]:
    plain, prefix, digest = tokens.new_secret()
    ApiToken.objects.create(
        name="OAuth", prefix=prefix, digest=digest, scopes=grant.scopes, grant=grant, audience=MCP
    )
    return {"HTTP_AUTHORIZATION": f"Bearer {plain}"}


def test_a_retry_with_the_refreshed_token_books_once(client, oauth_client):
    grant = OAuthGrant.objects.create(
        client=oauth_client, subject="agency", scopes=["booking.read", "booking.write"], resource=MCP
    )
    before, after = oauth_bearer(grant), oauth_bearer(grant)
    arguments = checkout_arguments(client, before)
    first = tool_result(call(client, before, "booking.create_checkout", arguments))["structuredContent"]
    again = tool_result(call(client, after, "booking.create_checkout", arguments))["structuredContent"]
    assert again["reference"] == first["reference"] and Booking.objects.count() == 1
    other = OAuthGrant.objects.create(
        client=oauth_client, subject="agency", scopes=["booking.read", "booking.write"], resource=MCP
    )
    elsewhere = tool_result(call(client, oauth_bearer(other), "booking.create_checkout", arguments))
    assert elsewhere["structuredContent"]["reference"] != first["reference"]
