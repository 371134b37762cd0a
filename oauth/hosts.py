"""Host names in client URLs as people must see them and browsers reach them: IDNA A-labels (punycode).
A Cyrillic look-alike such as `аррӏе.com` is kept and shown as `xn--80ak6aa92e.com`, so nobody reads it
as apple.com, and a URL put in an HTTP header (the consent page's Content-Security-Policy) stays ASCII."""

import ipaddress
import re
from urllib.parse import urlsplit, urlunsplit

import idna

# What a host may hold once in A-labels: letters, digits, dots, hyphens (and underscores, which some DNS
# names carry). A percent sign would be decoded by the browser into another host than the one shown.
ASCII_HOST = re.compile(r"^[A-Za-z0-9._-]+$")


def a_label_url(uri: str) -> str:
    """`uri` with its host in A-labels (UTS 46 mapping, as browsers do); an ASCII host is kept as written,
    and a URI without one (a native app's `com.example.app:/cb`) as it is. ValueError when the host is no
    valid host name."""
    parts = urlsplit(uri)
    parts.port  # noqa: B018  (raises on a malformed port)
    host = parts.hostname
    if not host:
        return uri
    if host.isascii():
        if not _valid_ascii_host(host):
            raise ValueError("The URI's host is not a host name.")
        return uri
    try:
        converted = idna.encode(host, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        raise ValueError("The URI's host is not a valid international domain name.") from None
    if not _valid_ascii_host(converted):
        raise ValueError("The URI's host is not a host name.")
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = (f"{userinfo}@" if userinfo else "") + converted
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def shown_host(uri: str) -> str:
    """The host of `uri` in A-labels, for a page; empty when it has none or none that is valid."""
    try:
        return urlsplit(a_label_url(uri)).hostname or ""
    except ValueError:
        return ""


def origin(uri: str) -> str:
    """The origin of `uri` as a Content-Security-Policy source: ASCII only (A-labels), so the header is
    never encoded into something browsers ignore; a native app's own scheme as `scheme:`. Empty when the
    URI has no host that could be written so."""
    try:
        parts = urlsplit(a_label_url(uri))
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https"):
        return f"{parts.scheme}:"
    host = parts.hostname or ""
    if not host:
        return ""
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port is not None else "")


def _valid_ascii_host(host: str) -> bool:
    if ASCII_HOST.match(host):
        return not any(label.startswith("xn--") for label in host.lower().split(".")) or _decodes(host)
    try:
        ipaddress.ip_address(host)  # an IPv6 literal (urlsplit drops its brackets)
    except ValueError:
        return False
    return True


def _decodes(host: str) -> bool:
    """Whether the A-labels of `host` are valid punycode of a valid name (browsers refuse others)."""
    try:
        idna.decode(host, uts46=True)
    except (idna.IDNAError, UnicodeError):
        return False
    return True
