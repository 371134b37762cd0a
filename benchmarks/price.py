"""Prints what a price costs: the pure engine, the warm service, and a whole warm /api/v1/price request.
Run: DJANGO_DEBUG=true .venv/bin/python benchmarks/price.py   (uses the local database; migrates it first)"""

import sys
from decimal import Decimal

from common import print_per_call
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from pricing import services
from pricing.quote import PriceRequest, compute_quote


def main() -> None:
    call_command("migrate", verbosity=0)
    snapshot = services.current_snapshot()
    request = PriceRequest(
        vehicle_class="first", distance_km=Decimal("243.7"), in_zone_a=False, wait_minutes=40
    )
    print_per_call("engine: compute_quote (pure)", lambda: compute_quote(snapshot, request), 20_000)
    print_per_call(
        "service: quote_price (warm snapshot, cache check)",
        lambda: services.quote_price(vehicle_class="first", distance_km=Decimal("243.7"), in_zone_a=False),
        20_000,
    )
    client = Client(HTTP_HOST="localhost", REMOTE_ADDR="192.0.2.1")
    url = "/api/v1/price?vehicleClass=first&distanceKm=243.7&inZoneA=false&waitMinutes=40"
    warm_up = client.get(url)
    if warm_up.status_code != 200:
        sys.exit(f"price request failed: {warm_up.status_code} {warm_up.content!r}")
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    print(f"{'request: database queries when warm':<48} {len(queries):9d}")
    from django.conf import settings

    settings.API_RATE_LIMIT_REQUESTS = 10**9  # measure the request, not the 429
    print_per_call("request: GET /api/v1/price (test client, warm)", lambda: client.get(url), 2_000)


if __name__ == "__main__":
    main()
