from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from chauffeur.api.params import query_params
from pricing import services
from pricing.serializers import PriceInput, PriceOutput


class PriceApi(APIView):
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
        quote = services.quote_price(**query_params(PriceInput, request))
        return Response(PriceOutput(quote).data)
