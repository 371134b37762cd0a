"""gzip for public reads and the MCP tool list only (apikit/compression.py, apikit/public_reads.py): when the client accepts it and
the body is a kilobyte or more; never an answer that carries a secret; HEAD keeps GET's headers and streams
pass untouched."""

import gzip
import json
import os
from datetime import timedelta

import pytest
from django.http import HttpResponse, StreamingHttpResponse
from django.utils import timezone

from access import tokens
from apikit.compression import MIN_BYTES, accepts_gzip
from apikit.public_reads import PublicReadsMiddleware
from tests.booking.conftest import make_booking  # noqa: F401 (a fixture)
from tests.mcp_endpoint.mcp import MCP, call, rpc

pytestmark = pytest.mark.django_db
GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


@pytest.mark.parametrize(
    ("accept_encoding", "taken"),
    [
        ("gzip", True),
        ("gzip, deflate, br, zstd", True),
        ("GZip;q=0.5", True),
        ("x-gzip", True),
        ("br, *", True),
        ("br;q=1.0, *;q=0.1", True),
        ("", False),
        ("identity", False),
        ("br, deflate", False),
        ("gzip;q=0", False),
        ("gzip;q=0.000", False),
        ("*;q=0", False),
        ("gzip;q=0, *", False),  # named beats the wildcard
        ("gzip;q=high", False),  # not a weight: not taken
        ("gzip;q=2", False),
    ],
)
def test_accept_encoding_is_read_with_its_weights(accept_encoding, taken):
    assert accepts_gzip(accept_encoding) is taken


def identity(client, path: str):
    answer = client.get(path)
    assert answer.status_code == 200 and "Content-Encoding" not in answer
    return answer


@pytest.mark.parametrize("path", ["/api/mcp", "/api/v1", "/openapi.json"])
def test_a_large_public_read_is_gzipped_when_asked(client, path):
    plain = identity(client, path)
    assert len(plain.content) >= MIN_BYTES
    assert "Accept-Encoding" in plain["Vary"]  # a cache keeps both forms apart
    assert plain["ETag"].startswith('"')  # strong: these bytes

    packed = client.get(path, **GZIP)
    assert packed["Content-Encoding"] == "gzip"
    assert int(packed["Content-Length"]) == len(packed.content) < len(plain.content) / 3
    assert gzip.decompress(packed.content) == plain.content
    assert "Accept-Encoding" in packed["Vary"]
    assert packed["ETag"] == "W/" + plain["ETag"]  # the same answer, other bytes: weak
    assert packed["Cache-Control"] == plain["Cache-Control"]


def test_a_gzip_answer_revalidates_with_either_form_of_its_etag(client):
    packed = client.get("/api/mcp", **GZIP)
    for tag in (packed["ETag"], packed["ETag"].removeprefix("W/")):
        again = client.get("/api/mcp", HTTP_IF_NONE_MATCH=tag, **GZIP)
        assert again.status_code == 304 and again.content == b""
        assert again["ETag"] == packed["ETag"] and "Content-Encoding" not in again
        assert "Accept-Encoding" in again["Vary"]


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/rating",
        "/api/google-rating",
        "/api/v1/extras",
        "/api/v1/price?vehicleClass=first&distanceKm=20",
    ],
)
def test_a_small_public_read_goes_as_it_is(client, path):
    answer = client.get(path, **GZIP)
    assert answer.status_code == 200 and len(answer.content) < MIN_BYTES
    assert "Content-Encoding" not in answer
    assert "Accept-Encoding" not in answer.get("Vary", "")  # it would not change with the header
    assert answer["ETag"].startswith('"') and answer.json()  # still validated, still JSON


def test_gzip_refused_by_weight_gets_the_identity_body(client):
    plain = identity(client, "/api/mcp")
    refused = client.get("/api/mcp", HTTP_ACCEPT_ENCODING="gzip;q=0, identity")
    assert "Content-Encoding" not in refused and refused.content == plain.content
    assert refused["ETag"] == plain["ETag"]


def private_and_plain(answer) -> None:
    assert len(answer.content) >= MIN_BYTES  # large enough: only its class keeps it uncompressed
    assert "Content-Encoding" not in answer and "ETag" not in answer
    assert {"private", "no-store"} <= {part.strip() for part in answer["Cache-Control"].split(",")}


@pytest.mark.usefixtures("sandbox")
def test_no_answer_carrying_a_secret_is_compressed(client, make_booking):  # noqa: F811
    token, plain = tokens.issue_token(name="agent", scopes=["booking.read", "booking.write"])
    headers = {"HTTP_AUTHORIZATION": f"Bearer {plain}", **GZIP}
    booking = make_booking(
        name="Anna Berger",
        destination="Flughafen Wien, " + "x" * 300,  # text the caller chose, beside the manage link
        pickup_at=timezone.now() + timedelta(days=2),
        channel="api",
        api_token_id=token.pk,
        provider_session_id="cs_test_secret",
    )
    # the booking as its token reads it: the link that opens it; and as a tool result
    answer = client.get(f"/api/v1/bookings/{booking.reference}", **headers)
    assert answer.status_code == 200 and "/booking/manage?booking=" in answer.content.decode()
    private_and_plain(answer)
    listed = client.get("/api/v1/bookings", **headers)
    assert listed.status_code == 200 and booking.reference in listed.content.decode()
    private_and_plain(listed)
    tool = call(client, headers, "booking.get_booking", {"reference": booking.reference})
    assert tool.status_code == 200 and "Anna Berger" in tool.content.decode()
    private_and_plain(tool)
    # a page with its CSRF token, the text of the query beside it
    page = client.get("/admin/login/?next=/admin/" + "y" * 100, **GZIP)
    assert page.status_code == 200 and b"csrfmiddlewaretoken" in page.content and b"y" * 100 in page.content
    private_and_plain(page)


def test_of_the_mcp_endpoints_posts_only_the_tool_list_is_compressed_and_none_streamed(client):
    _, plain = tokens.issue_token(name="agent", scopes=["booking.read"])
    headers = {"HTTP_AUTHORIZATION": f"Bearer {plain}", "HTTP_ACCEPT": "application/json, text/event-stream"}
    answer = call(client, {**headers, **GZIP}, "booking.list_extras", {})
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    private_and_plain(answer)
    # the tool list: the server's own text and the caller's request id
    listed = rpc(client, {**headers, **GZIP}, "tools/list", request_id="chosen-by-the-caller")
    assert (
        listed.status_code == 200
        and listed["Content-Encoding"] == "gzip"
        and "Accept-Encoding" in listed["Vary"]
    )
    tools = json.loads(gzip.decompress(listed.content))
    assert tools["id"] == "chosen-by-the-caller" and len(tools["result"]["tools"]) > 10
    assert int(listed["Content-Length"]) == len(listed.content) < len(json.dumps(tools)) / 4
    plain_list = rpc(client, headers, "tools/list", request_id="chosen-by-the-caller")
    assert "Content-Encoding" not in plain_list and json.loads(plain_list.content) == tools
    # a refused listing (a batch or an error) goes as it is
    refused = rpc(client, {**headers, **GZIP}, "tools/list", "not an object")
    assert "error" in refused.json() and "Content-Encoding" not in refused
    # GET asking for an event stream: refused in the endpoint's own words, untouched here
    refused = client.get(MCP, HTTP_ACCEPT="text/event-stream", **GZIP)
    assert refused.status_code == 405 and refused.json()["error"]["message"]
    assert "Content-Encoding" not in refused and "ETag" not in refused


def test_head_says_what_get_would_without_the_body(client):
    got = client.get("/api/v1", **GZIP)
    head = client.head("/api/v1", **GZIP)
    assert head.status_code == 200 and head.content == b""
    for name in ("Content-Encoding", "ETag", "Cache-Control", "Vary", "Content-Type"):
        assert head[name] == got[name], name
    # the random padding Django adds against BREACH moves a gzip's length by up to 100 bytes
    assert abs(int(head["Content-Length"]) - len(got.content)) <= 100
    assert client.head("/api/v1", HTTP_IF_NONE_MATCH=got["ETag"]).status_code == 304
    plain_head = client.head("/api/v1")
    assert plain_head["Content-Length"] == str(len(client.get("/api/v1").content))
    assert "Content-Encoding" not in plain_head


def test_a_stream_on_a_public_read_passes_unread_and_unbuffered(rf):
    sent: list[int] = []

    def events():
        for number in range(3):
            sent.append(number)
            yield f"data: {number}\n\n".encode()

    stream = StreamingHttpResponse(events(), content_type="text/event-stream")
    answered = PublicReadsMiddleware(lambda request: stream)(rf.get(MCP, HTTP_ACCEPT_ENCODING="gzip"))
    assert answered is stream and sent == []  # nothing read ahead of the client
    assert "Content-Encoding" not in answered and "ETag" not in answered and "Cache-Control" not in answered
    assert next(iter(answered)) == b"data: 0\n\n" and sent == [0]  # each event as it comes


def test_an_answer_a_view_encoded_itself_is_left_alone(rf):
    encoded = gzip.compress(os.urandom(4 * MIN_BYTES))  # as long as it was: worth compressing but for that

    def view(request):
        answer = HttpResponse(encoded, content_type="application/json")
        answer["Content-Encoding"] = "gzip"
        return answer

    answered = PublicReadsMiddleware(view)(rf.get("/api/v1", HTTP_ACCEPT_ENCODING="gzip"))
    assert answered.content == encoded and answered["Content-Encoding"] == "gzip"  # not compressed twice
