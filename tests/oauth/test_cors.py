"""The OAuth endpoints a browser-based client calls answer every origin; the bearer endpoints stay closed
to strangers' pages (apikit/cors.py)."""

import pytest

pytestmark = pytest.mark.django_db

ORIGIN = "http://localhost:6274"  # the MCP Inspector's page


@pytest.mark.parametrize(
    "path",
    ["/oauth/token", "/oauth/revoke", "/oauth/register", "/.well-known/oauth-authorization-server"],
)
def test_a_preflight_from_any_origin_is_allowed_with_authorization(client, path):
    response = client.options(
        path,
        HTTP_ORIGIN=ORIGIN,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, mcp-protocol-version",
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == ORIGIN
    allowed = response["Access-Control-Allow-Headers"]
    assert "authorization" in allowed and "mcp-protocol-version" in allowed and "content-type" in allowed
    assert "Access-Control-Allow-Credentials" not in response


def test_the_token_endpoints_answer_is_readable_from_any_origin(client):
    response = client.post("/oauth/token", {"grant_type": "refresh_token"}, HTTP_ORIGIN=ORIGIN)
    assert response.status_code == 400 and response["Access-Control-Allow-Origin"] == ORIGIN


@pytest.mark.parametrize("path", ["/api/mcp", "/api/v1/checkout", "/oauth/consent", "/oauth/authorize"])
def test_other_paths_stay_closed_to_a_strangers_page(client, path):
    response = client.options(path, HTTP_ORIGIN=ORIGIN, HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST")
    assert "Access-Control-Allow-Origin" not in response


def test_the_operators_sites_do_not_gain_authorization_on_the_public_api(client, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://www.example.com"]
    response = client.options(
        "/api/v1/price", HTTP_ORIGIN="https://www.example.com", HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET"
    )
    assert response["Access-Control-Allow-Origin"] == "https://www.example.com"
    assert "authorization" not in response["Access-Control-Allow-Headers"]
