"""The official TypeScript SDK's OAuth client (1.x: an OAuthClientProvider given to the Streamable HTTP
transport, which runs `auth()`) against a live gunicorn and job worker: it meets the 401, discovers the
protected resource and authorization server metadata, registers itself (dynamic registration, or names a
client ID metadata document), sends the traveller's browser to authorize; the traveller signs in with the code
the worker mailed, consents; the SDK exchanges the code with PKCE, lists the tools, books a ride in the
traveller's name, lists the traveller's bookings and, once its short-lived access token has expired,
refreshes it by itself."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.mcp_endpoint.oauth.browser import Browser
from tests.mcp_endpoint.oauth.harness import OAuthLive, node_env
from tests.mcp_endpoint.oauth.rides import checkout_arguments

NODE_TOOLS = Path(__file__).parents[1] / "node"
NODE = NODE_TOOLS / "node_modules" / ".bin" / "node"
if not NODE.exists():
    pytest.skip(
        "the Node MCP clients are not installed: `make test` installs them from tests/mcp_endpoint/node/package-lock.json "
        "when npm is on the PATH",
        allow_module_level=True,
    )
REDIRECT = "http://127.0.0.1:33418/callback"  # a native client's loopback redirect: nothing listens, the test hands it over


def typescript_session(live: OAuthLive, browser: Browser, email: str, plan: dict, tmp: Path) -> dict:
    """Run tests/mcp_endpoint/node/oauth_session.mjs with `plan`, playing the traveller's browser when it asks."""
    stderr = (tmp / "node.stderr").open("w")
    process = subprocess.Popen(
        [str(NODE), "oauth_session.mjs"],
        cwd=NODE_TOOLS,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env=node_env(tmp / "home"),
    )
    try:

        def send(message: dict) -> None:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()

        send({"url": live.mcp_url, "redirectUrl": REDIRECT, **plan})
        for line in process.stdout:
            message = json.loads(line)
            if "authorize" in message:
                send({"callback": browser.authorize(message["authorize"], email=email)})
            elif "report" in message:
                return message["report"]
        raise AssertionError("the script ended without a report:\n" + (tmp / "node.stderr").read_text())
    finally:
        process.stdin.close()
        process.wait(timeout=30)
        stderr.close()


def structured(answer: dict) -> dict:
    assert "result" in answer and answer["result"]["isError"] is False, answer
    return answer["result"]["structuredContent"]


def test_the_typescript_sdk_signs_a_traveller_in_books_lists_and_refreshes(live, tmp_path):
    email = "ada.ts@example.com"
    checkout = checkout_arguments(live.base, "Ada Traveller")
    plan = {
        "calls": [
            {"name": "booking.create_checkout", "arguments": checkout},
            {"name": "booking.list_bookings", "arguments": {}},
        ],
        "refresh": True,
        "afterRefresh": [{"name": "booking.list_bookings", "arguments": {"when": "all"}}],
    }
    browser = Browser(live)

    report = typescript_session(live, browser, email, plan, tmp_path)

    assert "failed" not in report, report
    # Dynamic registration (no metadata document offered): a client ID the service minted.
    assert report["clientId"] and not report["clientId"].startswith("https://")
    assert report["callback"]["state"] == report["callback"]["stateSent"]
    assert report["callback"]["iss"] == live.base  # RFC 9207
    assert "booking.list_bookings" in report["tools"]
    booked, listed = (structured(answer) for answer in report["calls"])
    assert booked["status"] == "pending_payment"
    assert [b["reference"] for b in listed["bookings"]] == [booked["reference"]]
    # The booking is the traveller's: booked under the address they signed in with.
    assert (
        live.shell(
            f"from booking.models import Booking; print(Booking.objects.get(reference={booked['reference']!r}).email)"
        )
        == email
    )
    # Refreshed by the SDK itself after the 401: a new access token and a new (rotated) refresh token.
    first, second = report["saved"]
    assert first["access"] != second["access"] and first["refresh"] != second["refresh"]
    (after,) = report["afterRefresh"]
    assert [b["reference"] for b in structured(after)["bookings"]] == [booked["reference"]]
    # The traveller saw who asks and for what before allowing.
    assert "Chauffeur proof (TypeScript SDK)" in browser.consent_page


def test_the_typescript_sdk_names_its_client_id_metadata_document_instead_of_registering(
    live, documents, tmp_path
):
    client_id = documents.publish(
        "/ts-client.json",
        client_name="Chauffeur proof (TypeScript SDK, metadata document)",
        redirect_uris=[REDIRECT],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    registered_before = live.shell("from oauth.models import OAuthClient; print(OAuthClient.objects.count())")
    plan = {"clientMetadataUrl": client_id, "calls": [{"name": "booking.list_bookings", "arguments": {}}]}
    browser = Browser(live)

    report = typescript_session(live, browser, "cimd.ts@example.com", plan, tmp_path)

    assert "failed" not in report, report
    assert report["clientId"] == client_id  # the URL is the client ID: nothing was registered
    assert "/ts-client.json" in documents.requests  # the service fetched the document
    assert structured(report["calls"][0])["bookings"] == []
    assert "Chauffeur proof (TypeScript SDK, metadata document)" in browser.consent_page
    kinds = live.shell(
        "from oauth.models import OAuthClient; "
        f"print(OAuthClient.objects.count(), OAuthClient.objects.get(client_id={client_id!r}).registration)"
    )
    assert kinds == f"{int(registered_before) + 1} metadata_document"
