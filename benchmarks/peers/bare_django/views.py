"""Plain Django views over the shared domain work: query parsing and JSON by hand."""

from datetime import datetime
from decimal import Decimal, InvalidOperation

import simplejson
from django.http import HttpResponse
from django.urls import path

from apikit.errors import DomainError
from benchmarks.peers import work


def answer(body: dict, status: int = 200) -> HttpResponse:
    return HttpResponse(
        simplejson.dumps(body, use_decimal=True), status=status, content_type="application/json"
    )


def refuse(message: str) -> HttpResponse:
    return answer({"error": message}, status=400)


def moment(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=work.VIENNA)


def price(request):
    query = request.GET
    try:
        quote = work.price(
            vehicle_class=query["vehicleClass"],
            distance_km=Decimal(query["distanceKm"]),
            in_zone_a=query.get("inZoneA", "true") == "true",
            wait_minutes=int(query.get("waitMinutes", "0")),
        )
    except (KeyError, ValueError, InvalidOperation, DomainError) as error:
        return refuse(str(error))
    return answer(work.quote_json(quote))


def distance(request):
    query = request.GET
    try:
        pickup = moment(query["pickupDatetime"]) if "pickupDatetime" in query else None
        found = work.route(origin=query["from"], destination=query["to"], pickup=pickup)
    except (KeyError, ValueError, DomainError) as error:
        return refuse(str(error))
    return answer(
        {
            "distance": found["distance_km"],
            "estimatedArrival": found["estimated_arrival"].isoformat(),
            "duration": found["duration_s"],
            "inZoneA": found["in_zone_a"],
        }
    )


def places(request):
    text = request.GET.get("input", "")
    if len(text.strip()) < 2:
        return refuse("input needs 2 characters")
    suggestions = work.suggest(text, request.GET.get("locale", "en"))
    return answer(
        {
            "suggestions": [
                {
                    "placePrediction": {
                        "placeId": item.place_id,
                        "text": {"text": item.text},
                        "types": item.types,
                    }
                }
                for item in suggestions
            ]
        }
    )


def availability(request):
    query = request.GET
    try:
        booked = moment(query["bookingDatetime"]) if "bookingDatetime" in query else None
        found = work.availability(pickup=moment(query["pickupDatetime"]), booked_at=booked)
    except (KeyError, ValueError) as error:
        return refuse(str(error))
    return answer(
        {
            "available": found.available,
            "pickupDatetime": found.pickup.isoformat(timespec="seconds"),
            "bookingDatetime": found.booked_at.isoformat(timespec="seconds"),
            "earliestPickup": found.earliest_pickup.isoformat(timespec="seconds"),
            "reason": found.reason,
        }
    )


urlpatterns = [
    path("api/v1/price", price),
    path("api/v1/distance", distance),
    path("api/v1/places", places),
    path("api/v1/availability", availability),
]
