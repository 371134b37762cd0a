"""A partner's webhook receiver, served on this machine: it keeps every request as it arrived and answers
the status it is set to (503 while it is "down")."""

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    answered: int  # the status the receiver gave it

    def verified(self, secret: str) -> dict:
        """The body, once the Standard Webhooks library accepts its signature (it raises otherwise)."""
        return Webhook(secret).verify(self.body, self.headers)


class Receiver:
    def __init__(self):
        self.received: list[Received] = []
        self.status = 204
        self.answer = b"ok"
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {name.lower(): value for name, value in self.headers.items()}
                receiver.received.append(Received(headers, body, receiver.status))
                self.send_response(receiver.status)
                self.send_header("Content-Length", str(len(receiver.answer)))
                self.end_headers()
                self.wfile.write(receiver.answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://localhost:{self.server.server_port}/hooks"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def events(self, secret: str) -> list[dict]:
        """What it accepted (a 2xx answer), each verified."""
        return [request.verified(secret) for request in self.received if 200 <= request.answered < 300]

    def types(self, secret: str) -> list[str]:
        return [event["type"] for event in self.events(secret)]
