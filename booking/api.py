"""The REST door of booking where it reaches no money: the lead time of a pickup. Checking out and a booking's
answers, which carry its money, are payments' door (payments/api.py)."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request

from apikit.operations import Operation
from apikit.renderers import Answer
from booking.availability import check_availability, default_policy_text
from booking.serializers import AvailabilityInput, AvailabilityOutput


class AvailabilityApi(Operation):
    input_serializer = AvailabilityInput

    @extend_schema(
        operation_id="getAvailability",
        summary="Check the lead time of a pickup",
        description=default_policy_text(),
        tags=["quotes"],
        parameters=[AvailabilityInput],
        responses={200: OpenApiResponse(AvailabilityOutput, description="Whether the pickup can be booked.")},
    )
    def get(self, request: Request) -> Answer:
        availability = check_availability(**self.validated(request).validated_data)
        return Answer(AvailabilityOutput.write(availability))
