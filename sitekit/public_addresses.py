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
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        mapped = getattr(ip, "ipv4_mapped", None)
        if not ip.is_global or (mapped is not None and not mapped.is_global):
            raise NotPublic(unresolved=False)
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
