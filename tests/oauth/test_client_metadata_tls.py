"""Outside DEBUG the document is fetched from the address that was checked, not from a second DNS answer:
a real TLS server on the loopback, with a certificate for a name no resolver knows, proves that the
connection goes to the pinned address while TLS still checks the certificate for the host name."""

import json
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from oauth import client_metadata
from oauth.client_metadata import ClientMetadataError

HOST = "app.example"  # unresolvable here: only the pinned address can reach the server


def certificate(tmp_path, name: str) -> tuple[str, str]:
    cert, key = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            f"/CN={name}",
            "-addext",
            f"subjectAltName=DNS:{name}",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return str(cert), str(key)


@pytest.fixture
def tls_server(tmp_path, monkeypatch):
    for proxy in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)  # straight to the loopback server
    seen: list[str] = []

    def start(name: str):
        cert, key = certificate(tmp_path, name)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                seen.append(self.headers["Host"])
                body = json.dumps({"client_id": f"https://{self.headers['Host']}{self.path}"}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server.server_address[1], cert

    servers: list[ThreadingHTTPServer] = []
    yield start, seen
    for server in servers:
        server.shutdown()
        server.server_close()


def test_the_request_goes_to_the_checked_address_with_the_hosts_name(tls_server, monkeypatch):
    start, seen = tls_server
    port, cert = start(HOST)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", cert)  # trust the test's certificate
    url = f"https://{HOST}:{port}/client.json"
    document, _ = client_metadata.fetch(url, address="127.0.0.1")
    assert document == {"client_id": url} and seen == [f"{HOST}:{port}"]


def test_a_certificate_for_another_name_is_refused(tls_server, monkeypatch):
    start, seen = tls_server
    port, cert = start("other.example")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", cert)
    with pytest.raises(ClientMetadataError, match="could not be fetched"):
        client_metadata.fetch(f"https://{HOST}:{port}/client.json", address="127.0.0.1")
    assert seen == []
