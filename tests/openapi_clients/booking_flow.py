"""A ride booked through the client openapi-python-client generated from the live /openapi.json (the package
`chauffeur_api_client`, on PYTHONPATH; tests/openapi_clients/test_generated_clients.py generates it, type-checks
it with this script and runs this): distance, price, checkout, read, list, cancel. Usage: python
booking_flow.py BASE TOKEN; prints what each step answered as one JSON object."""

import datetime
import json
import sys
import uuid
from typing import TypeVar
from zoneinfo import ZoneInfo

from chauffeur_api_client import AuthenticatedClient
from chauffeur_api_client.api.booking import cancel_booking, create_checkout, get_booking, list_bookings
from chauffeur_api_client.api.quotes import get_distance, get_price
from chauffeur_api_client.models import (
    BookingEmailInputRequest,
    BookingListOutput,
    BookingStateOutput,
    DistanceOutput,
    GetPriceVehicleClass,
    ListBookingsWhen,
    PriceOutput,
    Problem,
    V1BookingDataInputRequest,
    V1CheckoutInputRequest,
    V1CheckoutOutput,
    VehicleClassEnum,
)

Answer = TypeVar("Answer")


def answered(step: str, result: object, expected: type[Answer]) -> Answer:
    """A step's answer, or the problem it answered with, and the script stops."""
    if not isinstance(result, expected):
        detail = result.to_dict() if isinstance(result, Problem) else result
        raise SystemExit(f"{step}: {detail!r}")
    return result


def main(base: str, token: str) -> dict[str, object]:
    client = AuthenticatedClient(base_url=base, token=token, raise_on_unexpected_status=True)
    origin, destination = "Hotel Sacher", "Flughafen Wien"
    in_three_days = datetime.datetime.now(ZoneInfo("Europe/Vienna")).date() + datetime.timedelta(days=3)
    pickup = datetime.datetime.combine(in_three_days, datetime.time(10), ZoneInfo("Europe/Vienna"))

    route = answered(
        "distance", get_distance.sync(client=client, from_=origin, to=destination), DistanceOutput
    )
    price = answered(
        "price",
        get_price.sync(
            client=client,
            distance_km=route.distance,
            vehicle_class=GetPriceVehicleClass.EXECUTIVE,
            in_zone_a=route.in_zone_a,
        ),
        PriceOutput,
    )
    checkout = V1CheckoutInputRequest(
        amount=round(price.price_eur * 100),
        booking_data=V1BookingDataInputRequest(
            from_=origin,
            to=destination,
            pickup_datetime=pickup,
            vehicle_class=VehicleClassEnum.EXECUTIVE,
            name="Pia Generated",
            email="pia@example.com",
        ),
    )
    booked = answered(
        "checkout",
        create_checkout.sync(client=client, body=checkout, idempotency_key=str(uuid.uuid4())),
        V1CheckoutOutput,
    )
    read = answered("read", get_booking.sync(booked.reference, client=client), BookingStateOutput)
    listed = answered("list", list_bookings.sync(client=client, when=ListBookingsWhen.ALL), BookingListOutput)
    cancelled = answered(
        "cancel",
        cancel_booking.sync(booked.reference, client=client, body=BookingEmailInputRequest()),
        BookingStateOutput,
    )
    unknown = get_booking.sync("CB-NONE00", client=client)
    return {
        "priceEur": price.price_eur,
        "reference": booked.reference,
        "checkoutStatus": booked.status,
        "paymentPage": booked.url,
        "read": {"reference": read.reference, "status": read.status.value, "priceEur": read.price_eur},
        "listed": [booking.reference for booking in listed.bookings],
        "cancelled": cancelled.status.value,
        "unknown": {"code": unknown.code.value if isinstance(unknown, Problem) else repr(unknown)},
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
