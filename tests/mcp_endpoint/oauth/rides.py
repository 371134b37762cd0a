"""A ride to book in a traveller's name, priced as the service prices it (the checkout checks the amount)."""

import requests

from tests.mcp_endpoint.test_mcp_client import PICKUP


def checkout_arguments(base: str, name: str) -> dict:
    ride = {"from": "Vienna Airport", "to": "Hotel Sacher Wien"}
    route = requests.get(f"{base}/api/v1/distance", params=ride, timeout=10).json()
    price = requests.get(
        f"{base}/api/v1/price",
        params={"distanceKm": route["distance"], "vehicleClass": "first", "inZoneA": route["inZoneA"]},
        timeout=10,
    ).json()
    booking = {**ride, "pickupDatetime": PICKUP.isoformat(), "vehicleClass": "first", "name": name}
    return {"amount": round(price["priceEur"] * 100), "bookingData": booking}
