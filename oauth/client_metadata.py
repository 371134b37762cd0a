"""Client ID metadata documents (MCP 2025-11-25, Authorization › Client ID Metadata Documents;
draft-ietf-oauth-client-id-metadata-document-00): a client whose ID is an HTTPS URL describes itself in the
JSON document at that URL. It is fetched here — 5 s at most, 64 KiB at most, no redirects, JSON only —
checked, and kept as an OAuthClient until its cache time runs out (the document's Cache-Control max-age,
at most OAUTH_CLIENT_METADATA_SECONDS).

Server-side request forgery: outside DEBUG the URL must be https and every address its host resolves to
must be a global one (no private, loopback, link-local, shared or reserved range), so a client ID cannot
make the server call its own network. The request then goes to the address that was checked (TLS still
verifies the certificate for the host name), so a second DNS answer (rebinding) cannot redirect it."""

import ipaddress
import json
import logging
import re
import socket
from datetime import timedelta
from urllib.parse import urlsplit, urlunsplit

import requests
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from requests.adapters import HTTPAdapter

from oauth import metadata_rules
from oauth.metadata_rules import MetadataError
from oauth.models import OAuthClient

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
        port = parts.port or 443
        addresses = {
            str(info[4][0]) for info in socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
        }
    except (OSError, ValueError, UnicodeError):
        raise ClientMetadataError("The client ID URL's host cannot be resolved.") from None
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        mapped = getattr(ip, "ipv4_mapped", None)
        if not ip.is_global or (mapped is not None and not mapped.is_global):
            raise ClientMetadataError("The client ID URL's host is not a public address.")
    return sorted(addresses)[0]


class _PinnedAddress(HTTPAdapter):
    """Connects to the address in the URL while TLS (SNI, certificate check) speaks to the host name."""

    def __init__(self, hostname: str):
        self.hostname = hostname
        super().__init__(max_retries=0)

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(
            *args, **kwargs, server_hostname=self.hostname, assert_hostname=self.hostname
        )

    def proxy_manager_for(self, proxy, **proxy_kwargs):
        proxy_kwargs.update(server_hostname=self.hostname, assert_hostname=self.hostname)
        return super().proxy_manager_for(proxy, **proxy_kwargs)


def fetch(url: str, *, address: str | None = None) -> tuple[object, int | None]:
    """The document (parsed JSON) and the max-age its Cache-Control allows (0 for no-store/no-cache);
    fetched from `address` when given (the one check_url checked), else wherever the host name resolves."""
    headers = {"Accept": "application/json"}
    session = requests.Session()
    if address is not None:
        parts = urlsplit(url)
        if not parts.hostname:  # check_url, which gave the address, refused such a URL already
            raise ClientMetadataError("The client ID URL must name a host and carry no credentials.")
        host = f"[{address}]" if ":" in address else address
        headers["Host"] = parts.netloc
        session.mount("https://", _PinnedAddress(parts.hostname))
        url = urlunsplit(
            (parts.scheme, f"{host}:{parts.port}" if parts.port else host, parts.path, parts.query, "")
        )
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
