"""Client ID metadata documents (MCP 2025-11-25, Authorization › Client ID Metadata Documents;
draft-ietf-oauth-client-id-metadata-document-00): a client whose ID is an HTTPS URL describes itself in the
JSON document at that URL. It is fetched here — 5 s at most, 64 KiB at most, no redirects, JSON only —
checked, and kept as an OAuthClient until its cache time runs out (the document's Cache-Control max-age,
at most OAUTH_CLIENT_METADATA_SECONDS).

Server-side request forgery: outside DEBUG the URL must be https and its host resolve to public addresses
only, and the request goes to the address checked (sitekit/public_addresses.py)."""

import json
import logging
import re
from datetime import timedelta
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from oauth import metadata_rules
from oauth.metadata_rules import MetadataError
from oauth.models import OAuthClient
from sitekit import public_addresses

TIMEOUT_SECONDS = 5
MAX_BYTES = 64 * 1024
JSON_TYPE = re.compile(r"^application/([\w.+-]+\+)?json$")
MAX_AGE = re.compile(r"(?:^|,)\s*(?:s-maxage|max-age)\s*=\s*\"?(\d+)", re.IGNORECASE)

logger = logging.getLogger(__name__)


class ClientMetadataError(MetadataError):
    """The document could not be fetched or was refused; `description` says why (for the error page)."""


def is_document_url(client_id: str) -> bool:
    """Whether a client ID names a metadata document: an https URL (http on a loopback host in DEBUG,
    for local tests and development)."""
    return client_id.startswith("https://") or (
        settings.DEBUG and client_id.startswith("http://") and _loopback_url(client_id)
    )


def client_for_document(client_id: str) -> OAuthClient | None:
    """The client a document URL names, fetched again when its stored copy has expired; None when it
    cannot be fetched or is refused (logged), or staff blocked it."""
    stored = OAuthClient.objects.filter(client_id=client_id).first()
    if stored is not None and stored.blocked_at is not None:
        return None
    if stored is not None and stored.metadata_expires_at and stored.metadata_expires_at > timezone.now():
        return stored
    try:
        return refresh(client_id)
    except ClientMetadataError as refusal:
        logger.warning("Client metadata document %s refused: %s", client_id[:200], refusal.description)
        return None


def refresh(client_id: str) -> OAuthClient:
    """Fetch, check and store the document; ClientMetadataError when any step fails (nothing changes)."""
    address = check_url(client_id)
    document, max_age = fetch(client_id, address=address)
    fields = validated(client_id, document)
    now = timezone.now()
    lifetime = settings.OAUTH_CLIENT_METADATA_SECONDS
    if max_age is not None:
        lifetime = min(max_age, lifetime)
    fields.update(metadata_fetched_at=now, metadata_expires_at=now + timedelta(seconds=lifetime))
    try:
        with transaction.atomic():
            client, _ = OAuthClient.objects.update_or_create(
                client_id=client_id,
                defaults=fields,
                create_defaults={**fields, "registration": OAuthClient.Registration.METADATA_DOCUMENT},
            )
    except IntegrityError:  # another request stored it at the same moment: theirs is as fresh
        client = OAuthClient.objects.get(client_id=client_id)
    if client.blocked_at is not None:
        raise ClientMetadataError("Staff blocked this client.")
    return client


def check_url(url: str) -> str | None:
    """The draft's §3 rules for the URL, and outside DEBUG the address rules above: the checked address
    to connect to (None in DEBUG: the name is resolved as usual)."""
    parts = urlsplit(url)
    if len(url) > metadata_rules.MAX_URL_LENGTH or parts.fragment or "#" in url:
        raise ClientMetadataError("The client ID URL must be short and have no fragment.")
    if parts.username is not None or parts.password is not None or not parts.hostname:
        raise ClientMetadataError("The client ID URL must name a host and carry no credentials.")
    if parts.path in ("", "/") or any(segment in (".", "..") for segment in parts.path.split("/")):
        raise ClientMetadataError("The client ID URL must have a path without dot segments.")
    if parts.scheme != "https" and not (settings.DEBUG and _loopback_url(url)):
        raise ClientMetadataError("The client ID URL must use https.")
    if settings.DEBUG:  # development and tests: local documents, and no resolver needed
        return None
    try:
        return public_addresses.checked_address(parts.hostname, parts.port or 443)
    except ValueError as refusal:  # NotPublic, or a malformed port
        if isinstance(refusal, public_addresses.NotPublic) and not refusal.unresolved:
            raise ClientMetadataError("The client ID URL's host is not a public address.") from None
        raise ClientMetadataError("The client ID URL's host cannot be resolved.") from None


def fetch(url: str, *, address: str | None = None) -> tuple[object, int | None]:
    """The document (parsed JSON) and the max-age its Cache-Control allows (0 for no-store/no-cache);
    fetched from `address` when given (the one check_url checked), else wherever the host name resolves."""
    if address is not None and not urlsplit(url).hostname:
        # check_url, which gave the address, refused such a URL already
        raise ClientMetadataError("The client ID URL must name a host and carry no credentials.")
    session, url, headers = public_addresses.pinned(url, address)
    headers["Accept"] = "application/json"
    try:
        with (
            session,
            session.get(
                url, timeout=TIMEOUT_SECONDS, allow_redirects=False, stream=True, headers=headers
            ) as response,
        ):
            if response.status_code != 200:
                raise ClientMetadataError(f"Fetching the document answered HTTP {response.status_code}.")
            kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if not JSON_TYPE.match(kind):
                raise ClientMetadataError("The document must be served as application/json.")
            body = b""
            for chunk in response.iter_content(8192):
                body += chunk
                if len(body) > MAX_BYTES:
                    raise ClientMetadataError(f"The document is larger than {MAX_BYTES // 1024} KiB.")
            cache_control = response.headers.get("Cache-Control", "")
    except requests.RequestException as failure:
        raise ClientMetadataError(f"The document could not be fetched ({type(failure).__name__}).") from None
    try:
        document = json.loads(body)
    except ValueError:
        raise ClientMetadataError("The document is not valid JSON.") from None
    return document, _max_age(cache_control)


def validated(client_id: str, document: object) -> dict[str, object]:
    """The OAuthClient fields a document gives; the document itself is kept as the client's metadata."""
    if not isinstance(document, dict):
        raise ClientMetadataError("The document must be a JSON object.")
    if document.get("client_id") != client_id:
        raise ClientMetadataError("The document's client_id must equal its URL exactly.")
    # Shared secrets make no sense for a document anyone can read; private_key_jwt would need a JWKS
    # this server does not verify.
    if document.get("token_endpoint_auth_method", "none") != "none":
        raise ClientMetadataError(
            "token_endpoint_auth_method must be none: this server authenticates metadata document clients "
            "by PKCE and their redirect URIs only."
        )
    try:
        metadata_rules.refuse_invisible_characters(document)
        uris = metadata_rules.redirect_uris(document.get("redirect_uris"))
        metadata_rules.grant_and_response_types(document)
        name = metadata_rules.client_name(document.get("client_name"), required=True)
        client_uri = metadata_rules.https_url("client_uri", document.get("client_uri"))
        logo_uri = metadata_rules.https_url("logo_uri", document.get("logo_uri"))
    except MetadataError as refusal:
        raise ClientMetadataError(refusal.description) from None
    return {
        "name": name,
        "redirect_uris": uris,
        "client_uri": client_uri,
        "logo_uri": logo_uri,
        "token_endpoint_auth_method": "none",
        "secret_digest": "",
        "metadata": document,
    }


def _max_age(cache_control: str) -> int | None:
    directives = cache_control.lower()
    if "no-store" in directives or "no-cache" in directives:
        return 0
    match = MAX_AGE.search(cache_control)
    return int(match.group(1)) if match else None


def _loopback_url(url: str) -> bool:
    try:
        return metadata_rules.is_loopback_host(urlsplit(url).hostname)
    except ValueError:
        return False
