"""Public reads: the answers anyone may read and any cache may keep. Each carries nothing of its caller (no
token, no traveller's data, no link that opens a booking), so the same URL answers every caller alike, and
none puts a secret beside text the caller chose, so compressing it reveals nothing (BREACH). They are
listed here by route, each with how long a copy stays fresh; a 200 of theirs to GET or HEAD gets

- that Cache-Control, where every other answer is `private, no-store` (apikit/private_answers.py);
- a strong ETag: the MD5 of the identity body (as Django's `set_response_etag` makes it), so it changes
  exactly when the bytes do, whatever changed them (a release, staff editing the tariffs, a new rating),
  and an If-None-Match that names it is answered 304 with no body;
- gzip when the client accepts it and the body is worth it (apikit/compression.py), with
  `Vary: Accept-Encoding` and the ETag then weak.

Errors, streams and every answer not listed pass untouched. `declare_caching` says the same in the
OpenAPI document, from the same list."""

import copy
import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.urls import reverse
from django.utils.http import parse_etags

from apikit import compression
from apikit.schema import HEADERS as SHARED_HEADERS


@dataclass(frozen=True)
class Freshness:
    cache_control: str
    explained: str  # for the OpenAPI document

    def header(self) -> dict:
        """Its declaration as a response header: a dict of its own each time (later hooks may edit one)."""
        return {"description": self.explained, "schema": {"type": "string", "example": self.cache_control}}


# Changes only with a release of the service: five minutes behind one is harmless (the OAuth metadata
# documents say the same), and a browser or proxy need not ask again meanwhile.
RELEASED = Freshness(
    "public, max-age=300",
    "Changes only with a release of the service: a copy may be used for five minutes, then revalidated.",
)
# Google's rating is asked again hourly and staff may edit the kept snapshot: a rating five minutes old is
# still the rating, and the operator's website shows it on every page view.
RATING = Freshness(
    "public, max-age=300",
    "Changes at most hourly, or when staff edit it: a copy may be used for five minutes, then revalidated.",
)
# The tariffs: staff may edit them at any moment and every worker prices with the edit from its next
# request, so no lifetime can be promised. A price does not depend on the clock (the lead time decides
# whether a pickup can be booked, not what it costs): a stored copy stays right for exactly as long as
# its ETag, which the server checks on each use.
TARIFF = Freshness(
    "public, no-cache",
    "Follows the tariffs, which staff may edit at any moment: a stored copy must be revalidated on each "
    "use (If-None-Match), and is answered 304 while the answer is unchanged.",
)

PUBLIC_READS: dict[str, Freshness] = {
    "openapi": RELEASED,  # /openapi.json
    "v1-catalog": RELEASED,  # GET /api/v1
    "mcp": RELEASED,  # GET /api/mcp: the endpoint's description with every tool (POST is no read)
    "v1-rating": RATING,
    "google-rating": RATING,
    "v1-price": TARIFF,
    "v1-extras": TARIFF,
}
# What a 304 repeats of the 200 it stands for (RFC 9110 §15.4.5).
KEPT_BY_NOT_MODIFIED = ("Cache-Control", "Content-Location", "Date", "ETag", "Expires", "Vary")


@functools.cache
def freshness_by_path() -> dict[str, Freshness]:
    return {reverse(name): freshness for name, freshness in PUBLIC_READS.items()}


class PublicReadsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        freshness = freshness_by_path().get(request.path_info)
        if (
            freshness is None
            or request.method not in ("GET", "HEAD")
            or response.status_code != 200
            or not isinstance(response, HttpResponse)  # a stream goes as it comes, never buffered here
        ):
            return response
        if "Cache-Control" not in response:
            response["Cache-Control"] = freshness.cache_control
        if "ETag" not in response:
            response["ETag"] = strong_etag(response.content)
        gzip = compression.worth_compressing(response)
        if gzip:
            compression.vary_on_encoding(response)  # a small body goes as it is, whatever the client accepts
            gzip = compression.accepts_gzip(request.META.get("HTTP_ACCEPT_ENCODING", ""))
        if names_current(request, response.get("ETag", "")):
            response = not_modified(response)
            if gzip:
                compression.weaken_etag(response)  # the ETag the 200 would have carried
        elif gzip:
            compression.compress(response)
        return response


def strong_etag(body: bytes) -> str:
    """As Django's `set_response_etag` writes it, without its lazy regex (a third of this middleware's time
    on a small answer)."""
    return f'"{hashlib.md5(body, usedforsecurity=False).hexdigest()}"'


def names_current(request: HttpRequest, etag: str) -> bool:
    """Whether If-None-Match names the answer's ETag (compared weakly, RFC 9110 §13.1.2) or is `*`."""
    header = request.META.get("HTTP_IF_NONE_MATCH")
    if not header or not etag:
        return False
    named = parse_etags(header)
    if named == ["*"]:
        return True
    return etag.removeprefix("W/") in {tag.removeprefix("W/") for tag in named}


def not_modified(response: HttpResponse) -> HttpResponseNotModified:
    answer = HttpResponseNotModified()
    for name in KEPT_BY_NOT_MODIFIED:
        if name in response:
            answer[name] = response[name]
    return answer


ETAG_HEADER = {
    "description": "The answer's validator: send it back as If-None-Match to be answered 304 while the "
    "answer is unchanged. Weak (W/…) when the body came gzip-compressed; either form revalidates.",
    "schema": {"type": "string", "example": '"9b2cf535f27731c974343645a3985328"'},
}
IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": "ETags of copies already held (or `*`): when one is current the answer is 304 with no "
    "body.",
    "schema": {"type": "string"},
}


def declare_caching(result: dict, generator, request, public) -> dict:
    """drf-spectacular postprocessing hook, after the shared responses: each public read's operation
    takes If-None-Match, its 200 carries ETag and Cache-Control, and it may answer 304."""
    result.setdefault("components", {}).setdefault("headers", {})["ETag"] = ETAG_HEADER
    etag = {"$ref": "#/components/headers/ETag"}
    paths = result.get("paths", {})
    for path, freshness in freshness_by_path().items():
        operation = paths.get(path, {}).get("get")
        if operation is None:  # /openapi.json is not in its own document
            continue
        operation.setdefault("parameters", []).append(copy.deepcopy(IF_NONE_MATCH))
        responses = operation["responses"]
        ok = responses["200"].setdefault("headers", {})
        ok.update({"ETag": dict(etag), "Cache-Control": freshness.header()})
        shared = {name: dict(ref) for name, ref in ok.items() if name in SHARED_HEADERS}  # the rate limit's
        responses["304"] = {
            "description": "Not Modified: the copy whose ETag If-None-Match named is current. No body.",
            "headers": {**shared, "ETag": dict(etag), "Cache-Control": freshness.header()},
        }
    return result
