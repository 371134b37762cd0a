"""What the public reads' middleware (apikit/public_reads.py: Cache-Control, ETag, 304, gzip) costs a small
answer, which it validates but never compresses:

1. GET /api/v1/price (about 500 bytes, under compression's 1 KiB), asked with `Accept-Encoding: gzip` and
   a bearer token through the production WSGI application (debug off), once with the middleware in
   MIDDLEWARE and once without: CPU per warm request, the two alternating batch by batch so that the
   machine's drift touches both alike. Medians of the batches, and their difference.
2. The middleware alone on that answer, and on an answer it does not list (what every other request
   pays): its own time per call, the answer's making subtracted.
3. For scale, a large public read (GET /api/mcp): its bytes identity and gzipped, and gzip's time.
CPU time, not wall time, as benchmarks/hotpath.py measures it.
Run: DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python benchmarks/public_reads.py [batches]
(uses that database; migrates it first). `make bench` runs it after the servers' comparison."""

import cProfile
import os
import pstats
import statistics
import sys
import time
import timeit
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SECRET_KEY", "profile-only-secret-key-" + "x" * 40)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.test import RequestFactory, override_settings  # noqa: E402

from access import tokens  # noqa: E402
from apikit import compression  # noqa: E402
from apikit.public_reads import PublicReadsMiddleware  # noqa: E402
from benchmarks.hotpath import environ  # noqa: E402
from benchmarks.run import READS  # noqa: E402

MIDDLEWARE = "apikit.public_reads.PublicReadsMiddleware"
PRICE = "/api/v1/price"
REQUESTS_PER_BATCH = 200
GZIP = {"Accept-Encoding": "gzip, deflate, br"}


def application(with_middleware: bool) -> WSGIHandler:
    chain = [name for name in settings.MIDDLEWARE if with_middleware or name != MIDDLEWARE]
    with override_settings(MIDDLEWARE=chain):
        return WSGIHandler()  # reads MIDDLEWARE once, here


def caller(app: WSGIHandler, headers: dict[str, str]):
    query = urlencode(READS[PRICE])
    answered: list[tuple[str, list]] = []

    def start_response(status: str, sent: list) -> None:
        answered.append((status, sent))

    def call() -> bytes:
        body = b"".join(app(environ(PRICE, query, "GET", b"", headers), start_response))
        if not answered[-1][0].startswith("200"):
            sys.exit(f"{PRICE}: {answered[-1][0]} {body[:300]!r}")
        return body

    def last_headers() -> dict[str, str]:
        return dict(answered[-1][1])

    return call, last_headers


def whole_requests(batches: int, headers: dict[str, str]) -> None:
    calls = {name: caller(application(name == "with"), headers) for name in ("with", "without")}
    for name, (call, last_headers) in calls.items():
        for _ in range(50):
            body = call()
        sent = last_headers()
        encoding, etag = sent.get("Content-Encoding", "-"), sent.get("ETag", "-")
        print(
            f"{name:>7} the middleware: {len(body)} bytes, Content-Encoding {encoding}, ETag {etag}, "
            f"Cache-Control {sent.get('Cache-Control')}"
        )
    per_request: dict[str, list[float]] = {"with": [], "without": []}
    for batch in range(batches):
        order = ("with", "without") if batch % 2 == 0 else ("without", "with")
        for name in order:
            call = calls[name][0]
            started = time.process_time()
            for _ in range(REQUESTS_PER_BATCH):
                call()
            per_request[name].append((time.process_time() - started) / REQUESTS_PER_BATCH * 1e6)
    with_it, without = (statistics.median(per_request[name]) for name in ("with", "without"))
    spread = {name: statistics.quantiles(values, n=4) for name, values in per_request.items()}
    print(
        f"GET {PRICE} with Accept-Encoding: gzip, CPU per warm request, median of {batches} batches × "
        f"{REQUESTS_PER_BATCH} (quartiles):"
    )
    for name, median in (("with", with_it), ("without", without)):
        low, _, high = spread[name]
        print(f"  {name:>7} the middleware {median:8.1f} µs   ({low:.1f}–{high:.1f})")
    print(f"  difference             {with_it - without:+8.1f} µs   ({(with_it - without) / without:+.1%})")
    calls = {name: python_calls(calls[name][0]) for name in ("with", "without")}
    print(
        f"  Python function calls per request (a count a busy machine does not move): {calls['with']:.0f} "
        f"with, {calls['without']:.0f} without"
    )


def python_calls(call, number: int = 200) -> float:
    profile = cProfile.Profile()
    profile.runcall(lambda: [call() for _ in range(number)])
    return pstats.Stats(profile).total_calls / number


def per_call(function, number: int = 20_000) -> float:
    return min(timeit.repeat(function, number=number, repeat=5)) / number * 1e6


def added(function, baseline, rounds: int = 15) -> float:
    """What `function` takes beyond `baseline`, in µs: the median of rounds that time each in turn."""
    return statistics.median(per_call(function, 5_000) - per_call(baseline, 5_000) for _ in range(rounds))


def middleware_alone(body: bytes) -> None:
    factory = RequestFactory()

    def answer(request) -> HttpResponse:
        return HttpResponse(body, content_type="application/json")

    middleware = PublicReadsMiddleware(answer)
    listed = factory.get(PRICE, READS[PRICE], HTTP_ACCEPT_ENCODING="gzip")
    unlisted = factory.get("/api/v1/availability", HTTP_ACCEPT_ENCODING="gzip")
    small = answer(listed)
    figures = {
        "a public read: all of it": added(lambda: middleware(listed), lambda: answer(listed)),
        "  of which the decision not to compress": per_call(lambda: compression.worth_compressing(small)),
        "any other answer: the list's look-up": added(lambda: middleware(unlisted), lambda: answer(unlisted)),
    }
    print(f"the middleware alone on a {len(body)}-byte answer (the answer's making subtracted):")
    for label, microseconds in figures.items():
        print(f"  {label:<42} {microseconds:6.2f} µs")


def large_answer() -> None:
    app = application(True)
    body = b"".join(app(environ("/api/mcp", "", "GET", b"", {}), lambda status, sent: None))

    def packed() -> HttpResponse:
        response = HttpResponse(body, content_type="application/json")
        compression.compress(response)
        return response

    took = per_call(packed, number=20) / 1000
    print(
        f"GET /api/mcp for scale: {len(body):,} bytes, {len(packed().content):,} gzipped "
        f"(compression starts at {compression.MIN_BYTES} bytes), {took:.2f} ms of gzip"
    )


def main() -> None:
    arguments = sys.argv[1:]
    call_command("migrate", verbosity=0)
    token, plain = tokens.issue_token(name="public reads", scopes=["booking.read"], rate_limit=2_000_000_000)
    headers = {"Authorization": f"Bearer {plain}", **GZIP}
    try:
        whole_requests(int(arguments[0]) if arguments else 30, headers)
        price = b"".join(
            application(False)(environ(PRICE, urlencode(READS[PRICE]), "GET", b"", {}), lambda *sent: None)
        )
        middleware_alone(price)
        large_answer()
    finally:
        token.delete()


if __name__ == "__main__":
    main()
