"""OAuth clients made directly with the ORM (registration is another piece's), PKCE pairs and the
authorization request of a public client."""

import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlsplit

import pytest

from oauth.models import OAuthClient

BASE = "https://chauffeur.test"
MCP = f"{BASE}/api/mcp"
V1 = f"{BASE}/api/v1"
REDIRECT = "https://assistant.example/callback"


@pytest.fixture(autouse=True)
def public_base(settings):
    settings.PUBLIC_BASE_URL = BASE


@pytest.fixture
def oauth_client(db) -> OAuthClient:
    return OAuthClient.objects.create(
        client_id="assistant-1",
        registration=OAuthClient.Registration.DYNAMIC,
        name="Trip Assistant",
        redirect_uris=[REDIRECT, "http://127.0.0.1:33418/cb"],
        client_uri="https://assistant.example/about",
    )


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize_params(challenge: str, **changes) -> dict[str, str]:
    params = {
        "response_type": "code",
        "client_id": "assistant-1",
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "xyz-state",
        "scope": "booking.read booking.write",
        "resource": MCP,
    }
    params.update(changes)
    return {name: value for name, value in params.items() if value is not None}


def query_of(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}


def sign_in_traveller(client, email: str = "anna@example.com") -> None:
    """What the sign-in page does once the mailed code is confirmed (its own tests cover that)."""
    session = client.session
    session["oauth.traveller"] = email
    session.save()
