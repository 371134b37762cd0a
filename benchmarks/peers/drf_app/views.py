"""One APIView per operation, input and output serializers, the shared domain work."""

from django.urls import path
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from benchmarks.peers import work


class PriceInput(serializers.Serializer):
    vehicleClass = serializers.ChoiceField(choices=["executive", "first", "business-van"])
    distanceKm = serializers.DecimalField(max_digits=10, decimal_places=3, min_value=0)
    inZoneA = serializers.BooleanField(default=True)
    waitMinutes = serializers.IntegerField(min_value=0, default=0)


class LineOutput(serializers.Serializer):
    code = serializers.CharField()
    label = serializers.CharField()
    amountEur = serializers.DecimalField(max_digits=12, decimal_places=2, source="amount")


class PriceOutput(serializers.Serializer):
    priceEur = serializers.DecimalField(max_digits=12, decimal_places=2, source="price")
    currency = serializers.CharField()
    netEur = serializers.DecimalField(max_digits=12, decimal_places=2, source="net")
    vatEur = serializers.DecimalField(max_digits=12, decimal_places=2, source="vat")
    vatRate = serializers.FloatField(source="vat_rate")
    vehicleClass = serializers.CharField(source="vehicle_class")
    bookingType = serializers.CharField(source="booking_type")
    lines = LineOutput(many=True)


class PriceView(APIView):
    def get(self, request):
        query = PriceInput(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        data = query.validated_data
        quote = work.price(
            vehicle_class=data["vehicleClass"],
            distance_km=data["distanceKm"],
            in_zone_a=data["inZoneA"],
            wait_minutes=data["waitMinutes"],
        )
        return Response(PriceOutput(quote).data)


class DistanceInput(serializers.Serializer):
    to = serializers.CharField(max_length=500)
    pickupDatetime = serializers.DateTimeField(required=False)

    def get_fields(self):
        return {"from": serializers.CharField(max_length=500), **super().get_fields()}


class DistanceOutput(serializers.Serializer):
    distance = serializers.DecimalField(max_digits=8, decimal_places=1, source="distance_km")
    estimatedArrival = serializers.DateTimeField(source="estimated_arrival")
    duration = serializers.IntegerField(source="duration_s")
    inZoneA = serializers.BooleanField(source="in_zone_a")


class DistanceView(APIView):
    def get(self, request):
        query = DistanceInput(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        data = query.validated_data
        found = work.route(origin=data["from"], destination=data["to"], pickup=data.get("pickupDatetime"))
        return Response(DistanceOutput(found).data)


class PlacesInput(serializers.Serializer):
    input = serializers.CharField(min_length=2, max_length=200)
    locale = serializers.ChoiceField(choices=["en", "de"], default="en")


class PredictionOutput(serializers.Serializer):
    placeId = serializers.CharField(source="place_id")
    text = serializers.SerializerMethodField()
    types = serializers.ListField(child=serializers.CharField())

    def get_text(self, suggestion) -> dict:
        return {"text": suggestion.text}


class SuggestionOutput(serializers.Serializer):
    placePrediction = PredictionOutput(source="*")


class PlacesView(APIView):
    def get(self, request):
        query = PlacesInput(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        suggestions = work.suggest(query.validated_data["input"], query.validated_data["locale"])
        return Response({"suggestions": SuggestionOutput(suggestions, many=True).data})


class AvailabilityInput(serializers.Serializer):
    pickupDatetime = serializers.DateTimeField()
    bookingDatetime = serializers.DateTimeField(required=False)


class AvailabilityOutput(serializers.Serializer):
    available = serializers.BooleanField()
    pickupDatetime = serializers.DateTimeField(source="pickup")
    bookingDatetime = serializers.DateTimeField(source="booked_at")
    earliestPickup = serializers.DateTimeField(source="earliest_pickup")
    reason = serializers.CharField(allow_null=True)


class AvailabilityView(APIView):
    def get(self, request):
        query = AvailabilityInput(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        data = query.validated_data
        found = work.availability(pickup=data["pickupDatetime"], booked_at=data.get("bookingDatetime"))
        return Response(AvailabilityOutput(found).data)


urlpatterns = [
    path("api/v1/price", PriceView.as_view()),
    path("api/v1/distance", DistanceView.as_view()),
    path("api/v1/places", PlacesView.as_view()),
    path("api/v1/availability", AvailabilityView.as_view()),
]
