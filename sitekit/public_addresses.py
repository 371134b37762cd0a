"""Calls to URLs that strangers give us (a client's metadata document, a webhook endpoint): every address the
host resolves to must be a global one (no private, loopback, link-local, shared or reserved range), so a URL
cannot make the server call its own network; the request then goes to the address that was checked (TLS
still verifies the certificate for the host name), so a second DNS answer (rebinding) cannot redirect it."""

import ipaddress
import socket
from urllib.parse import urlsplit, urlunsplit

import requests
from requests.adapters import HTTPAdapter


class NotPublic(ValueError):
    """The host cannot be resolved (`unresolved`), or one of its addresses is not a public one."""

    def __init__(self, *, unresolved: bool):
        super().__init__("unresolved" if unresolved else "not public")
        self.unresolved = unresolved


def checked_address(host: str, port: int) -> str:
    """The address to connect to for `host`; NotPublic when any of its addresses is not global."""
    try:
        addresses = {str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)}
    except (OSError, ValueError, UnicodeError):
        raise NotPublic(unresolved=True) from None
    if not all(is_public(ipaddress.ip_address(address.split("%")[0])) for address in addresses):
        raise NotPublic(unresolved=False)
    return sorted(addresses)[0]


NAT64 = ipaddress.ip_network("64:ff9b::/96")
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
SITE_LOCAL = ipaddress.ip_network("fec0::/10")


def is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """A global address, and for an IPv6 one that carries an IPv4 address (mapped, NAT64, 6to4, Teredo,
    IPv4-compatible), that one global too: a translating network would reach it."""
    if not ip.is_global:
        return False
    if isinstance(ip, ipaddress.IPv4Address):
        return True
    if ip in SITE_LOCAL:
        return False
    carried = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    if ip in NAT64 or ip in IPV4_COMPATIBLE:
        carried.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return all(inner.is_global for inner in carried if inner is not None)


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


def pinned(url: str, address: str | None) -> tuple[requests.Session, str, dict[str, str]]:
    """A session, the URL and the headers that call `url` at `address` (the one checked_address gave); at
    the host name as usual when `address` is None (development and tests)."""
    session = requests.Session()
    if address is None:
        return session, url, {}
    parts = urlsplit(url)
    host = f"[{address}]" if ":" in address else address
    session.mount("https://", _PinnedAddress(parts.hostname or ""))
    at_address = urlunsplit(
        (parts.scheme, f"{host}:{parts.port}" if parts.port else host, parts.path, parts.query, "")
    )
    return session, at_address, {"Host": parts.netloc}
