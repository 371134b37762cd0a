from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from chauffeur.api.operations import Operation
from pricing import services
from pricing.serializers import PriceInput, PriceOutput


class PriceApi(Operation):
    input_serializer = PriceInput

    @extend_schema(
        operation_id="getPrice",
        summary="Price a ride from the tariff tables",
        description=(
            "Gross EUR price (VAT included) with net, VAT and the lines it is made of. Distance bookings: "
            "base fare + per-km bands, at least the minimum fare, plus the outside-Zone-A surcharge; hourly: "
            "started half hours (minimum 2 h); tours: a fixed price. Waiting is added per started 15 "
            "minutes; the gross is rounded up to the tariff's step (1 EUR)."
        ),
        tags=["quotes"],
        parameters=[PriceInput],
        responses={200: OpenApiResponse(PriceOutput, description="The price and its lines.")},
    )
    def get(self, request: Request) -> Response:
        quote = services.quote_price(**self.validated(request).validated_data)
        return Response(PriceOutput(quote).data)
