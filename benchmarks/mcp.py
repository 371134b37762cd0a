"""Prints what the agent endpoint adds to a REST call: tools/call against the matching /api/v1 request,
tools/list, and the database queries of a warm tools/call.
Run: DJANGO_DEBUG=true .venv/bin/python benchmarks/mcp.py   (uses the local database; migrates it first)"""

import json
import sys

from common import print_per_call
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from access import tokens


def main() -> None:
    call_command("migrate", verbosity=0)
    settings.API_RATE_LIMIT_REQUESTS = 10**9  # measure the request, not the 429
    token, plain = tokens.issue_token(name="benchmark", scopes=["booking.read"])
    client = Client(HTTP_HOST="localhost", REMOTE_ADDR="192.0.2.1", HTTP_AUTHORIZATION=f"Bearer {plain}")

    def message(method: str, params: dict | None = None) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}})

    price_call = message(
        "tools/call",
        {"name": "booking.calculate_price", "arguments": {"distanceKm": 243.7, "vehicleClass": "first"}},
    )
    price_url = "/api/v1/price?vehicleClass=first&distanceKm=243.7"
    listing = message("tools/list")

    def post(body: str):
        return client.post("/api/mcp", body, content_type="application/json")

    for body in (price_call, listing):
        warm_up = post(body)
        if warm_up.status_code != 200:
            sys.exit(f"agent request failed: {warm_up.status_code} {warm_up.content!r}")
    client.get(price_url)
    with CaptureQueriesContext(connection) as queries:
        post(price_call)
    print(f"{'tools/call price: database queries when warm':<52} {len(queries):9d}")
    print_per_call("GET /api/v1/price (test client, warm)", lambda: client.get(price_url), 1_000)
    print_per_call("tools/call booking.calculate_price (warm)", lambda: post(price_call), 1_000)
    print_per_call("tools/list (five tools, schemas cached)", lambda: post(listing), 500)
    print(f"{'tools/list body size':<52} {len(post(listing).content):9d} bytes")
    token.delete()


if __name__ == "__main__":
    main()
