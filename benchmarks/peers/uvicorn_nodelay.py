"""uvicorn for the SDK peer (`python -m benchmarks.peers.uvicorn_nodelay`, uvicorn's own command line), with
Nagle's algorithm off on every connection its workers accept.

With `--workers N` uvicorn binds the listening socket itself, leaving its protocol at 0, and asyncio turns
TCP_NODELAY on only for sockets that report IPPROTO_TCP. So each answer after the first on a keep-alive
connection waited for the client's delayed ACK: about 44 ms, whatever the app did (Kludex/uvicorn#3149,
open in uvicorn 0.54). gunicorn sets TCP_NODELAY on its listener, and Linux passes the option on to the
sockets it accepts; this does the same for uvicorn, so the benchmark compares the SDK's code and not
that bug."""

import socket
import sys

from uvicorn.config import Config
from uvicorn.main import main

_bind_socket = Config.bind_socket


def bind_socket_without_nagle(config: Config) -> socket.socket:
    sock = _bind_socket(config)
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


if __name__ == "__main__":
    Config.bind_socket = bind_socket_without_nagle  # type: ignore[method-assign]
    sys.exit(main())
