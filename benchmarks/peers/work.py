"""The domain work every peer does, so that `make bench` compares the plumbing around it: the project's own
pure engines (quote, offline gazetteer, lead-time rule), with the tariffs read from the project's database
once per process and the default lead-time policy. Parsing the request and writing the answer stays each
peer's own business."""

from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from zoneinfo import ZoneInfo

from booking import lead_time
from places.geo import touches_zone_a
from places.providers.base import Endpoint
from places.providers.offline import OfflineProvider
from pricing.quote import BookingType, PriceRequest, Quote, compute_quote
from pricing.services import load_snapshot

VIENNA = ZoneInfo("Europe/Vienna")
RULES = lead_time.LeadTimeRules(
    zone=VIENNA,
    minimum_lead=timedelta(minutes=lead_time.DEFAULT_MINIMUM_LEAD_MINUTES),
    night_start=lead_time.DEFAULT_NIGHT_START,
    night_end=lead_time.DEFAULT_NIGHT_END,
    night_earliest_pickup=lead_time.DEFAULT_NIGHT_EARLIEST_PICKUP,
    max_ahead=timedelta(days=lead_time.DEFAULT_MAX_DAYS_AHEAD),
)
_provider = OfflineProvider()
tariffs = cache(load_snapshot)  # the first request of each process reads them


def price(
    *, vehicle_class: str, distance_km: Decimal, in_zone_a: bool = True, wait_minutes: int = 0
) -> Quote:
    request = PriceRequest(
        vehicle_class=vehicle_class,
        distance_km=distance_km,
        booking_type=BookingType.DISTANCE,
        in_zone_a=in_zone_a,
        wait_minutes=wait_minutes,
    )
    return compute_quote(tariffs(), request)


def route(*, origin: str, destination: str, pickup: datetime | None) -> dict:
    """Distance (km, 0.1), duration (s), arrival (Vienna time) and Zone A, in the project's names."""
    found = _provider.route(Endpoint(origin.strip()), Endpoint(destination.strip()), departure=pickup)
    arrival = (pickup or datetime.now(UTC)).astimezone(UTC) + timedelta(seconds=found.duration_s)
    return {
        "distance_km": (Decimal(found.distance_m) / 1000).quantize(Decimal("0.1"), ROUND_HALF_UP),
        "duration_s": found.duration_s,
        "estimated_arrival": arrival.astimezone(VIENNA).replace(microsecond=0),
        "in_zone_a": touches_zone_a(found.points),
    }


def suggest(text: str, locale: str = "en"):
    return _provider.suggest(text.strip(), locale=locale, session_token=None)


def availability(*, pickup: datetime, booked_at: datetime | None) -> lead_time.Availability:
    return lead_time.evaluate(RULES, pickup=pickup, booked_at=booked_at or datetime.now(UTC))


def quote_json(quote: Quote) -> dict:
    """The price answer as the project writes it (Decimal amounts, to be written by simplejson)."""
    return {
        "priceEur": quote.price,
        "currency": quote.currency,
        "netEur": quote.net,
        "vatEur": quote.vat,
        "vatRate": float(quote.vat_rate),
        "vehicleClass": quote.vehicle_class,
        "bookingType": str(quote.booking_type),
        "lines": [{"code": line.code, "label": line.label, "amountEur": line.amount} for line in quote.lines],
    }
