"""gzip for the answers `apikit.public_reads` names and for the MCP endpoint's tool list, when the client
accepts it and the body is worth it.

BREACH recovers a secret from the compressed length of a body that also carries text an attacker chose, so
an answer carrying a token, a checkout link or a CSRF token is never compressed: only those answers are,
whose bodies hold the server's own text and at most what the caller sent itself (the tool list repeats
its request id). The gzip is Django's own (`compress_string`, the one its GZipMiddleware writes), with the
random-length padding it adds against BREACH kept: it costs under 100 bytes and covers an answer that would
one day carry a secret by mistake.

Below MIN_BYTES the identity body goes as it is: an answer's headers take about 450 bytes (measured
through gunicorn), so a body under about a kilobyte travels in one TCP segment (1,448 bytes on Ethernet
with Linux's timestamps) either way; gzip would save no packet and no round trip there, and would still
cost its CPU and its frame (docs/benchmarks.md measures a small answer with and without all this)."""

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import patch_vary_headers
from django.utils.text import compress_string

MIN_BYTES = 1024
GZIP_NAMES = frozenset({"gzip", "x-gzip"})  # x-gzip: the old name RFC 9110 §8.4.1.3 keeps equivalent


def worth_compressing(response: HttpResponse) -> bool:
    """Whether the answer's representation depends on Accept-Encoding (it gets `Vary: Accept-Encoding`)."""
    return len(response.content) >= MIN_BYTES and not response.has_header("Content-Encoding")


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding value (RFC 9110 §12.5.3) takes gzip: named, or by `*`, with a weight above
    zero; `gzip;q=0` refuses it even beside `*`. A weight that is not a number counts as a refusal."""
    named = anything = None
    for item in accept_encoding.split(","):
        coding, _, parameters = item.partition(";")
        coding = coding.strip().lower()
        if coding in GZIP_NAMES:
            named = _weight(parameters)
        elif coding == "*":
            anything = _weight(parameters)
    weight = named if named is not None else anything
    return bool(weight)


def _weight(parameters: str) -> float:
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "q":
            try:
                weight = float(value.strip())
            except ValueError:
                return 0.0
            return weight if 0 <= weight <= 1 else 0.0
    return 1.0


def compress(response: HttpResponse) -> None:
    """gzip the body in place, with Content-Encoding, Content-Length and its ETag made weak. (JSON of a
    kilobyte always shrinks, so unlike Django's middleware this does not check: a 304 can then tell which
    ETag the 200 would have carried without compressing.)"""
    compressed = compress_string(response.content, max_random_bytes=GZipMiddleware.max_random_bytes)
    response.content = compressed
    response["Content-Length"] = str(len(compressed))
    response["Content-Encoding"] = "gzip"
    weaken_etag(response)


def weaken_etag(response: HttpResponseBase) -> None:
    """A gzip body differs from the identity body's bytes and, with the padding, from one gzip to the next:
    not the same representation, so its validator is weak (RFC 9110 §8.8.1), as Django's GZipMiddleware
    makes it. If-None-Match compares weakly, so either form revalidates either."""
    etag = response.get("ETag")
    if etag and etag.startswith('"'):
        response["ETag"] = "W/" + etag


def compress_for(request: HttpRequest, response: HttpResponse) -> None:
    """gzip a body worth it when the client accepts gzip; `Vary: Accept-Encoding` either way."""
    if worth_compressing(response):
        vary_on_encoding(response)
        if accepts_gzip(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            compress(response)


def vary_on_encoding(response: HttpResponse) -> None:
    patch_vary_headers(response, ("Accept-Encoding",))
