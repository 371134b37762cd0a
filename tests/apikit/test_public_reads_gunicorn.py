"""Public reads through the production server (gunicorn with config/gunicorn.conf.py): a gzip body framed by
its Content-Length, a 304 and a HEAD with no body and no chunking, and the keep-alive connection carrying
the next request after each."""

import gzip
import http.client
from urllib.parse import urlsplit

import pytest

from tests.processes import gunicorn, migrated_sqlite


@pytest.fixture
def server(tmp_path):
    migrated_sqlite(tmp_path / "db.sqlite3")  # the seeded tariffs: the price is a public read too
    env = {
        "DJANGO_SECRET_KEY": "public-reads-test-secret-key-" + "x" * 30,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    with gunicorn(tmp_path, env, workers=1) as (base, _log):
        yield urlsplit(base).netloc


def ask(connection, method: str, path: str, **headers: str) -> tuple[http.client.HTTPResponse, bytes]:
    connection.request(method, path, headers=headers)
    answer = connection.getresponse()
    return answer, answer.read()


def test_gzip_304_and_head_keep_the_connection_framed(server):
    connection = http.client.HTTPConnection(server, timeout=30)
    plain, body = ask(connection, "GET", "/api/mcp")
    assert plain.status == 200 and plain.getheader("Content-Encoding") is None
    etag = plain.getheader("ETag")
    assert etag.startswith('"') and plain.getheader("Cache-Control") == "public, max-age=300"

    packed, packed_body = ask(connection, "GET", "/api/mcp", **{"Accept-Encoding": "gzip"})
    assert packed.getheader("Content-Encoding") == "gzip" and packed.getheader("Transfer-Encoding") is None
    assert int(packed.getheader("Content-Length")) == len(packed_body) < len(body) / 3
    assert gzip.decompress(packed_body) == body and packed.getheader("ETag") == "W/" + etag

    unchanged, nothing = ask(
        connection, "GET", "/api/mcp", **{"If-None-Match": etag, "Accept-Encoding": "gzip"}
    )
    assert unchanged.status == 304 and nothing == b""
    assert unchanged.getheader("ETag") == "W/" + etag and unchanged.getheader("Transfer-Encoding") is None
    assert unchanged.getheader("RateLimit")  # counted

    head, nothing = ask(connection, "HEAD", "/api/mcp", **{"Accept-Encoding": "gzip"})
    assert head.status == 200 and nothing == b"" and head.getheader("Content-Encoding") == "gzip"

    price, price_body = ask(
        connection, "GET", "/api/v1/price?vehicleClass=first&distanceKm=20", **{"Accept-Encoding": "gzip"}
    )
    assert price.status == 200 and price.getheader("Content-Encoding") is None  # small: as it is
    assert price.getheader("Cache-Control") == "public, no-cache" and b'"priceEur"' in price_body
    # the headers a small answer travels with: body and headers in one TCP segment (apikit/compression.py)
    header_bytes = sum(len(name) + len(value) + 4 for name, value in price.getheaders()) + 17
    assert header_bytes + len(price_body) < 1460, price.getheaders()
    connection.close()
