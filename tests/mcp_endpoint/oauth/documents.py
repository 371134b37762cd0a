"""A tiny HTTPS server on loopback serving client ID metadata documents (a client's identity is the URL of
its document; the SDKs accept only https URLs). Its certificate is self-signed for 127.0.0.1 and handed to
the live service as REQUESTS_CA_BUNDLE, the only trust the service's fetch (requests) is given for it."""

import datetime
import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from ipaddress import IPv4Address
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(IPv4Address("127.0.0.1"))]), critical=False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "documents.pem", folder / "documents.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


@dataclass
class Documents:
    base: str
    certificate: Path
    served: dict[str, dict] = field(default_factory=dict)  # path -> document
    requests: list[str] = field(default_factory=list)  # paths fetched, in order

    def publish(self, path: str, **metadata) -> str:
        """Serve a client's metadata document at `path`; its URL (= the client ID)."""
        url = f"{self.base}{path}"
        self.served[path] = {"client_id": url, **metadata}
        return url


@contextmanager
def document_server(folder: Path) -> Iterator[Documents]:
    cert, key = self_signed(folder)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    documents: Documents

    class Serve(BaseHTTPRequestHandler):
        def do_GET(self):
            documents.requests.append(self.path)
            document = documents.served.get(self.path)
            body = json.dumps(document).encode() if document is not None else b"{}"
            self.send_response(200 if document is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Serve)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    documents = Documents(f"https://127.0.0.1:{server.server_address[1]}", cert)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield documents
    finally:
        server.shutdown()
        server.server_close()
