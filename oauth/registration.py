"""Dynamic client registration (RFC 7591, docs/agents/oauth.md): a client describes itself and gets a
client ID the server chose — unpredictable, never reused, never taken from the request. A confidential
client (client_secret_basic or _post) gets a secret, shown in this one answer; only its SHA-256 digest is
stored. No registration access token is issued (RFC 7592 management is not offered), so a registration
answer cannot be used to read, change or repeat a registration: posting the same metadata again registers
another client with another ID and secret."""

import secrets
from dataclasses import dataclass
from typing import Any

from authlib.oauth2.rfc7591 import ClientMetadataClaims
from joserfc.errors import InvalidClaimError

from access.tokens import digest_of
from oauth import discovery, metadata_rules, registration_limits
from oauth.metadata_rules import MetadataError
from oauth.models import OAuthClient

CLIENT_ID_PREFIX = "dyn_"
APPLICATION_TYPES = ("web", "native")  # OpenID Connect Registration's; MCP 2026-07-28 asks clients for it
MAX_CONTACTS = 5
# What is kept and answered besides the fields that have columns; anything else (jwks, software
# statements, extensions) is dropped, as RFC 7591 §3.1 allows.
KEPT_STRINGS = ("software_id", "software_version")
MAX_KEPT_STRING = 200


@dataclass(frozen=True)
class Registration:
    client: OAuthClient
    client_secret: str  # empty for a public client
    document: dict[str, object]  # the RFC 7591 §3.2.1 answer


def register_client(*, metadata: object, address: str) -> Registration:
    """A new client from the metadata a client posted from `address`; MetadataError (with its RFC 7591
    error code) when a value is refused, RegistrationLimited when the address registered its budget's
    worth already, and then nothing is stored."""
    if not isinstance(metadata, dict):
        raise MetadataError("The request body must be a JSON object of client metadata.")
    kept = _validated(metadata)
    registration_limits.count_success(address)
    public = kept["token_endpoint_auth_method"] == "none"  # noqa: S105  (a method's name)
    secret = "" if public else secrets.token_urlsafe(32)
    client = OAuthClient.objects.create(
        client_id=CLIENT_ID_PREFIX + secrets.token_urlsafe(24),
        registration=OAuthClient.Registration.DYNAMIC,
        name=kept.get("client_name", ""),
        redirect_uris=kept["redirect_uris"],
        client_uri=kept.get("client_uri", ""),
        logo_uri=kept.get("logo_uri", ""),
        token_endpoint_auth_method=kept["token_endpoint_auth_method"],
        secret_digest=digest_of(secret) if secret else "",
        metadata=kept,
    )
    document: dict[str, object] = {
        "client_id": client.client_id,
        "client_id_issued_at": int(client.created_at.timestamp()),
    }
    if secret:
        document.update(client_secret=secret, client_secret_expires_at=0)  # 0: does not expire
    return Registration(client=client, client_secret=secret, document={**document, **kept})


def _validated(metadata: dict) -> dict[str, Any]:
    metadata_rules.refuse_invisible_characters(metadata)
    uris = metadata_rules.redirect_uris(metadata.get("redirect_uris"))
    grants, responses = metadata_rules.grant_and_response_types(metadata)
    _authlib_checks(metadata)
    method = metadata.get("token_endpoint_auth_method", "client_secret_basic")  # RFC 7591 §2's default
    if method not in discovery.TOKEN_ENDPOINT_AUTH_METHODS:
        raise MetadataError(
            f"token_endpoint_auth_method must be one of {', '.join(discovery.TOKEN_ENDPOINT_AUTH_METHODS)}."
        )
    kept: dict[str, Any] = {
        "redirect_uris": uris,
        "token_endpoint_auth_method": method,
        "grant_types": grants,
        "response_types": responses,
    }
    if name := metadata_rules.client_name(metadata.get("client_name")):
        kept["client_name"] = name
    for field in ("client_uri", "logo_uri", "tos_uri", "policy_uri"):
        if url := metadata_rules.https_url(field, metadata.get(field)):
            kept[field] = url
    if scope := metadata_rules.scope(metadata.get("scope")):
        kept["scope"] = scope
    if (kind := metadata.get("application_type")) is not None:
        if kind not in APPLICATION_TYPES:
            raise MetadataError(f"application_type must be one of {', '.join(APPLICATION_TYPES)}.")
        kept["application_type"] = kind
    if (contacts := metadata.get("contacts")) is not None:
        if (
            not isinstance(contacts, list)
            or len(contacts) > MAX_CONTACTS
            or not all(isinstance(item, str) and 0 < len(item) <= MAX_KEPT_STRING for item in contacts)
        ):
            raise MetadataError(f"contacts must list at most {MAX_CONTACTS} short texts.")
        kept["contacts"] = contacts
    for field in KEPT_STRINGS:
        if (value := metadata.get(field)) is not None:
            if not isinstance(value, str) or len(value) > MAX_KEPT_STRING:
                raise MetadataError(f"{field} must be a text of at most {MAX_KEPT_STRING} characters.")
            kept[field] = value
    return kept


def _authlib_checks(metadata: dict) -> None:
    """Authlib's RFC 7591 §2 checks, against this server's own metadata (RFC 8414): URL syntax, the
    supported scopes, grant and response types and authentication methods, a JWK set's shape."""
    options = ClientMetadataClaims.get_claims_options(discovery.authorization_server_metadata())
    claims = ClientMetadataClaims(dict(metadata), {}, options)
    try:
        claims.validate()
    except InvalidClaimError as refusal:
        error = "invalid_redirect_uri" if refusal.claim == "redirect_uris" else "invalid_client_metadata"
        raise MetadataError(f"Invalid value for {refusal.claim}.", error=error) from None
    except (TypeError, ValueError, AttributeError):  # a value of the wrong JSON type
        raise MetadataError("A client metadata value has the wrong type.") from None
