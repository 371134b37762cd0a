"""Long request lines through the production server: up to gunicorn's 8190 bytes the service answers 414 in
the surface's format; beyond that the worker itself answers, in problem+json, never gunicorn's HTML."""

import socket
from urllib.parse import urlsplit

import requests

from tests.config.test_deadline import deadline_env
from tests.processes import gunicorn


def raw_answer(base: str, target: str) -> bytes:
    address = urlsplit(base)
    with socket.create_connection((address.hostname, address.port), timeout=10) as connection:
        connection.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    return received


def test_long_request_lines_are_answered_in_json(tmp_path):
    with gunicorn(tmp_path, deadline_env(tmp_path), workers=1) as (base, _log):
        v1 = requests.get(f"{base}/api/v1/places", params={"input": "x" * 5000}, timeout=10)
        assert v1.status_code == 414
        assert v1.headers["Content-Type"] == "application/problem+json"
        assert v1.json()["code"] == "uri_too_long"
        legacy = requests.get(f"{base}/api/places-autocomplete", params={"input": "x" * 5000}, timeout=10)
        assert legacy.status_code == 414 and "error" in legacy.json()

        beyond = raw_answer(base, "/api/v1/places?input=" + "x" * 9000)
        head, _blank, body = beyond.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 414 "), head
        assert b"Content-Type: application/problem+json" in head
        assert b'"code":"uri_too_long"' in body
        assert b"<html" not in body.lower()
        assert requests.get(f"{base}/healthz", timeout=10).status_code == 200  # the worker serves on
