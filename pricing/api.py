from drf_spectacular.utils import extend_schema
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
        description="Gross EUR price with net, VAT and the lines it is made of (DECISIONS §4).",
        tags=["quotes"],
        parameters=[PriceInput],
        responses={200: PriceOutput},
    )
    def get(self, request: Request) -> Response:
        quote = services.quote_price(**query_params(PriceInput, request))
        return Response(PriceOutput(quote).data)
