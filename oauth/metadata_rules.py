"""The rules a client's metadata obeys, whether it registers itself (RFC 7591) or publishes a client ID
metadata document: redirect URIs that are HTTPS or loopback HTTP (MCP 2025-11-25, Security › Communication
Security), the grant and response types this server offers, names and links of bounded length, hosts kept
in IDNA A-labels (oauth/hosts.py), and no control or invisible formatting character anywhere."""

import ipaddress
import unicodedata
from urllib.parse import urlsplit

from access import protected_resources
from oauth import discovery, hosts

MAX_REDIRECT_URIS = 10
MAX_URL_LENGTH = 2000  # OAuthClient's URL columns
MAX_NAME_LENGTH = 200  # OAuthClient.name
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
# Control characters (Cc), format characters (Cf: bidi overrides and isolates such as U+202E and U+2066-9,
# the marks U+200E/F, zero-width characters) and line or paragraph separators: a name carrying them reads
# differently from what it is ("Trip Assistant" reversed behind U+202E), and a URL carrying them is not one.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


class MetadataError(ValueError):
    """A refused metadata value; `error` is the RFC 7591 §3.2.2 code."""

    def __init__(self, description: str, *, error: str = "invalid_client_metadata"):
        super().__init__(description)
        self.error, self.description = error, description


def refuse_invisible_characters(metadata: object, *, name: str = "client metadata") -> None:
    """MetadataError (invalid_client_metadata) naming the first field, at any depth, whose name or text
    holds a control or invisible formatting character."""
    if isinstance(metadata, str):
        if any(unicodedata.category(character) in INVISIBLE_CATEGORIES for character in metadata):
            raise MetadataError(
                f"{name[:100]} contains a control or invisible formatting character (such as a "
                "right-to-left override or a zero-width character); send plain text."
            )
    elif isinstance(metadata, dict):
        for key, value in metadata.items():
            refuse_invisible_characters(key, name="A field name")
            refuse_invisible_characters(value, name=str(key))
    elif isinstance(metadata, list):
        for index, value in enumerate(metadata):
            refuse_invisible_characters(value, name=f"{name}[{index}]")


def is_loopback_host(host: str | None) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


def redirect_uris(value: object) -> list[str]:
    """The client's redirect URIs, each absolute, without fragment or credentials, HTTPS or loopback HTTP
    (a native client's port is chosen when it runs: RFC 8252 §7.3), their hosts in A-labels."""
    if not isinstance(value, list) or not value:
        raise MetadataError("redirect_uris must list at least one URI.", error="invalid_redirect_uri")
    if len(value) > MAX_REDIRECT_URIS:
        raise MetadataError(
            f"At most {MAX_REDIRECT_URIS} redirect_uris are accepted.", error="invalid_redirect_uri"
        )
    for uri in value:
        if not isinstance(uri, str) or not _is_redirect_uri(uri):
            shown = uri[:100] if isinstance(uri, str) else type(uri).__name__
            raise MetadataError(
                f"Invalid redirect URI {shown!r}: use https://, or http:// on a loopback address "
                "(localhost, 127.0.0.1, [::1]), without a fragment.",
                error="invalid_redirect_uri",
            )
    converted = [hosts.a_label_url(uri) for uri in value]
    if any(len(uri) > MAX_URL_LENGTH for uri in converted):
        raise MetadataError(
            f"A redirect URI is longer than {MAX_URL_LENGTH} characters with its host in A-labels.",
            error="invalid_redirect_uri",
        )
    return list(dict.fromkeys(converted))


def _is_redirect_uri(uri: str) -> bool:
    if len(uri) > MAX_URL_LENGTH or "#" in uri:
        return False
    try:
        parts = urlsplit(uri)
        hosts.a_label_url(uri)  # raises on a malformed port or a host that is no host name
    except ValueError:
        return False
    if not parts.hostname or parts.username is not None or parts.password is not None:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and is_loopback_host(parts.hostname))


def https_url(name: str, value: object) -> str:
    """An optional link shown to people (client_uri, logo_uri, tos_uri, policy_uri): HTTPS only, its host
    in A-labels."""
    if value in (None, ""):
        return ""
    if not isinstance(value, str) or len(value) > MAX_URL_LENGTH:
        raise MetadataError(f"{name} must be an https:// URL of at most {MAX_URL_LENGTH} characters.")
    refusal = MetadataError(f"{name} must be an https:// URL without credentials or fragment.")
    try:
        parts = urlsplit(value)
        converted = hosts.a_label_url(value)
    except ValueError:
        raise refusal from None
    if parts.scheme != "https" or not parts.hostname or parts.username is not None or "#" in value:
        raise refusal
    if len(converted) > MAX_URL_LENGTH:
        raise MetadataError(f"{name} is longer than {MAX_URL_LENGTH} characters with its host in A-labels.")
    return converted


def client_name(value: object, *, required: bool = False) -> str:
    if value in (None, "") and not required:
        return ""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME_LENGTH:
        raise MetadataError(f"client_name must be a text of 1 to {MAX_NAME_LENGTH} characters.")
    refuse_invisible_characters(value, name="client_name")
    return value.strip()


def grant_and_response_types(metadata: dict) -> tuple[list[str], list[str]]:
    """grant_types ⊆ {authorization_code, refresh_token} with authorization_code; response_types ⊆ {code}
    (RFC 7591 §2: the defaults are authorization_code and code)."""
    grants = metadata.get("grant_types", ["authorization_code"])
    responses = metadata.get("response_types", ["code"])
    for name, values, allowed in (
        ("grant_types", grants, discovery.GRANT_TYPES),
        ("response_types", responses, discovery.RESPONSE_TYPES),
    ):
        if not isinstance(values, list) or not all(isinstance(item, str) for item in values):
            raise MetadataError(f"{name} must be a list of strings.")
        if unknown := sorted(set(values) - set(allowed)):
            raise MetadataError(f"Unsupported {name}: {', '.join(unknown)[:200]}; use {', '.join(allowed)}.")
    if "authorization_code" not in grants or "code" not in responses:
        raise MetadataError(
            "This server issues tokens by authorization code only: grant_types must "
            "include authorization_code and response_types code."
        )
    return list(dict.fromkeys(grants)), list(dict.fromkeys(responses))


def scope(value: object) -> str:
    if value in (None, ""):
        return ""
    if not isinstance(value, str) or set(value.split()) - set(protected_resources.SCOPES):
        raise MetadataError(
            f"scope must be a space-separated list of {', '.join(protected_resources.SCOPES)}."
        )
    return " ".join(protected_resources.ordered_scopes(value.split()))
