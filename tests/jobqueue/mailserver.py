"""Fake mail servers on loopback for the worker tests: one that accepts (aiosmtpd), optionally holding each
message before its answer, and one that accepts connections and never says a word."""

import asyncio
import socket
import threading
import time
from email import message_from_bytes

from aiosmtpd.controller import Controller


class Recorder:
    """Keeps each message the server answered 250 to. While `hold` is set, a message waits for its answer;
    one whose sender hung up meanwhile was never accepted, so it is not kept."""

    def __init__(self):
        self.accepted: list[tuple[list[str], str]] = []  # (recipients, subject)
        self.hold = threading.Event()
        self.holding = threading.Event()  # a message is waiting for its answer

    async def handle_DATA(self, server, session, envelope):
        while self.hold.is_set():
            self.holding.set()
            await asyncio.sleep(0.05)
        if server.transport is None or server.transport.is_closing():
            return "421 sender gone"
        subject = message_from_bytes(envelope.content)["Subject"]
        self.accepted.append((list(envelope.rcpt_tos), str(subject)))
        return "250 OK"

    def to(self, address: str) -> list[str]:
        return [subject for recipients, subject in self.accepted if address in recipients]


class MailServer:
    """An SMTP server on `port`, started and stopped at will (a mail server that is down, then back)."""

    def __init__(self, port: int):
        self.port, self.recorder, self.controller = port, Recorder(), None

    def start(self) -> None:
        self.controller = Controller(self.recorder, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


class SilentServer:
    """Accepts TCP connections (the kernel's backlog does) and never answers."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(50)
        self.port = self.sock.getsockname()[1]

    def close(self) -> None:
        self.sock.close()


def wait_for(condition, timeout: float, what: str, interval: float = 0.2):
    """Poll until `condition()` is truthy (returns it); fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        time.sleep(interval)
    return result
