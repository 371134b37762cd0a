"""Redis round trips counted where redis-py writes to its socket: each `send_packed_command` is one trip
(a pipeline, or a script with its keys, travels in one). Counting wraps the library's connection class for
the length of a `with` block; nothing of the project is replaced."""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

from redis.connection import AbstractConnection

COMMAND_NAME = re.compile(rb"\*\d+\r\n\$\d+\r\n([A-Za-z][A-Za-z ]*)\r\n")


@contextmanager
def count_redis_commands() -> Iterator[list[str]]:
    """The round trips made inside the block, each named by its commands (e.g. "EVALSHA", "GET")."""
    trips: list[str] = []
    send = AbstractConnection.send_packed_command

    def counted(connection, command, check_health=True):
        packed = command if isinstance(command, bytes | str) else b"".join(command)
        packed = packed.encode() if isinstance(packed, str) else packed
        trips.append("+".join(name.decode().upper() for name in COMMAND_NAME.findall(packed)) or "?")
        return send(connection, command, check_health)

    with mock.patch.object(AbstractConnection, "send_packed_command", counted):
        yield trips
