"""The applications that ask for access: looked up by client_id, their redirect URIs matched exactly
(loopback ports excepted, RFC 8252 §7.3), their secrets checked at the token endpoint."""

import hmac
from urllib.parse import urlsplit

from access.tokens import digest_of
from oauth import client_metadata, hosts
from oauth.models import OAuthClient

LOOPBACK_HOSTS = ("127.0.0.1", "[::1]", "localhost")


def client_of(client_id: str) -> OAuthClient | None:
    """The client that is not blocked, or None: a registered client (dynamic registration) from the
    database; an https URL is a client ID metadata document, fetched and kept fresh (client_metadata.py)."""
    if not client_id or len(client_id) > 2000:
        return None
    if not client_metadata.is_document_url(client_id):
        return OAuthClient.objects.filter(client_id=client_id, blocked_at__isnull=True).first()
    return client_metadata.client_for_document(client_id)


def redirect_uri_allowed(client: OAuthClient, redirect_uri: str) -> bool:
    """Exact match with a registered URI, both with their hosts in A-labels (a client may send the host
    as it registered it, in Unicode); a native app's loopback URI may name any port, since the app
    listens on whichever port is free (RFC 8252 §7.3)."""
    registered = [uri for uri in client.redirect_uris if isinstance(uri, str)]
    compared = same_redirect_uri(redirect_uri)
    if compared is not None and compared in {same_redirect_uri(uri) for uri in registered}:
        return True
    presented = _loopback_parts(redirect_uri)
    return presented is not None and any(_loopback_parts(uri) == presented for uri in registered)


def same_redirect_uri(uri: str) -> str | None:
    """The form two redirect URIs are compared in: the host in A-labels; None for a URI that has no valid
    host name (it matches nothing)."""
    try:
        return hosts.a_label_url(uri)
    except ValueError:
        return None


def _loopback_parts(uri: str) -> tuple[str, str, str] | None:
    """A loopback http URI without its port: (host, path, query); None for any other URI."""
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018  (raises on a malformed port)
    except ValueError:
        return None
    host = parts.netloc.rpartition("@")[2]
    host = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if parts.scheme != "http" or host not in LOOPBACK_HOSTS or "@" in parts.netloc or parts.fragment:
        return None
    return host, parts.path or "/", parts.query


def is_confidential(client: OAuthClient) -> bool:
    return bool(client.secret_digest)


def secret_matches(client: OAuthClient, secret: str) -> bool:
    return bool(client.secret_digest) and hmac.compare_digest(client.secret_digest, digest_of(secret))
