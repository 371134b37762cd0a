from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from booking import services
from booking.serializers import AvailabilityInput, AvailabilityOutput
from chauffeur.api.params import query_params


class AvailabilityApi(APIView):
    @extend_schema(
        operation_id="getAvailability",
        summary="Check the lead time of a pickup",
        description=(
            "At least 2 hours between booking and pickup; a booking placed between 22:00 and 06:00 gets no "
            "pickup before 09:00 that morning; no pickup in the past or more than 365 days ahead."
        ),
        tags=["quotes"],
        parameters=[AvailabilityInput],
        responses={200: OpenApiResponse(AvailabilityOutput, description="Whether the pickup can be booked.")},
    )
    def get(self, request: Request) -> Response:
        availability = services.check_availability(**query_params(AvailabilityInput, request))
        return Response(AvailabilityOutput(availability).data)
