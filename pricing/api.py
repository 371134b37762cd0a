from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request

from apikit.operations import Operation
from apikit.renderers import Answer
from pricing import services
from pricing.money import CURRENCY
from pricing.quote import HOURLY_BLOCK, MIN_HOURLY_HOURS, WAITING_BLOCK_MINUTES
from pricing.serializers import ExtrasInput, ExtrasOutput, PriceInput, PriceOutput


class PriceApi(Operation):
    input_serializer = PriceInput

    @extend_schema(
        operation_id="getPrice",
        summary="Price a ride from the tariff tables",
        description=(
            f"Gross {CURRENCY} price (VAT included) with net, VAT and the lines it is made of. Distance "
            "bookings: base fare + per-km bands, at least the minimum fare, plus the outside-Zone-A "
            f"surcharge; hourly: started {HOURLY_BLOCK * 60:g} minutes (at least {MIN_HOURLY_HOURS:g} h); "
            f"tours: a fixed price. Waiting is added per started {WAITING_BLOCK_MINUTES} minutes; the gross "
            "is rounded up to the tariff's rounding step. Refused with 400 (rules a schema cannot state, "
            "whose status the contract fixes): a `tourSlug` of no tour the operator offers "
            "(`unknown_tour`), a tour booked by the hour, and an hourly booking without `durationHours` or "
            "shorter than its tariff's minimum hours."
        ),
        tags=["quotes"],
        parameters=[PriceInput],
        responses={200: OpenApiResponse(PriceOutput, description="The price and its lines.")},
        extensions={"x-error-statuses": ["unknown_tour"]},
    )
    def get(self, request: Request) -> Answer:
        quote = services.quote_price(**self.validated(request).validated_data)
        return Answer(PriceOutput.write(quote))


class ExtrasApi(Operation):
    input_serializer = ExtrasInput

    @extend_schema(
        operation_id="listExtras",
        summary="List the extras a ride may have, with their prices",
        description=(
            "Child seats by age group, a name sign at arrivals, bulky luggage …: what the operator offers, "
            "each with its gross price (VAT included, per piece or per booking) and how many one ride may "
            "have in each vehicle class. Name them in `extras` of GET /api/v1/price and of the checkout's "
            "bookingData (`code` or `code:quantity`); each becomes a line of the price."
        ),
        tags=["quotes"],
        responses={200: OpenApiResponse(ExtrasOutput, description="The extras offered.")},
    )
    def get(self, request: Request) -> Answer:
        self.validated(request)
        return Answer(ExtrasOutput.write({"extras": services.offered_extras()}))
