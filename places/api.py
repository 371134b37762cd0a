"""The places doors: legacy endpoints (errors inside a 200 body, as the contract has it) and /api/v1."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from apikit.operations import Operation
from apikit.renderers import Answer
from places import services
from places.providers.base import PlacesError
from places.serializers import (
    DistanceInput,
    DistanceOutput,
    LegacyDistanceOutput,
    LegacySuggestionsOutput,
    PlacesInput,
    RatingOutput,
    SuggestionsOutput,
    V1DistanceInput,
)

ROUTE_PROBLEMS = {"x-error-statuses": [422, 503]}


class DistanceApi(Operation):
    input_serializer = V1DistanceInput

    @extend_schema(
        operation_id="getDistance",
        summary="Estimate a drive: distance, duration, arrival and Zone A",
        description=(
            "The drive from `from` to `to` (addresses or place names; or the `placeId`s GET /api/v1/places "
            "suggested, sent as `fromPlaceId` and `toPlaceId`), through `stops` in order: its road distance, "
            "driving time, the arrival for `pickupDatetime` (default now), and whether it starts or ends in "
            "Zone A. 422 `route_not_found` when a place is not found or no road joins them; 503 "
            "`upstream_unavailable` when the maps provider does not answer."
        ),
        tags=["quotes"],
        parameters=[V1DistanceInput],
        responses={200: OpenApiResponse(DistanceOutput, description="The route estimate.")},
        extensions=ROUTE_PROBLEMS,
    )
    def get(self, request: Request) -> Answer:
        estimate = services.estimate_route(**self.validated(request).validated_data)
        return Answer(DistanceOutput.write(estimate))


class PlacesApi(Operation):
    input_serializer = PlacesInput

    @extend_schema(
        operation_id="getPlaces",
        summary="Suggest addresses and places for what a traveller types",
        description=(
            "At most five addresses and places that match `input`, in `locale`'s language, each with the "
            "`placeId` GET /api/v1/distance takes. Send one `sessionToken` of your own (e.g. a UUID) with "
            "every keystroke of one address and with the distance call that uses it: the maps provider "
            "counts them as one search. 503 `upstream_unavailable` when the maps provider does not answer."
        ),
        tags=["places"],
        parameters=[PlacesInput],
        responses={200: OpenApiResponse(SuggestionsOutput, description="At most five suggestions.")},
        extensions={"x-error-statuses": [503]},
    )
    def get(self, request: Request) -> Answer:
        suggestions = services.suggest_places(**self.validated(request).validated_data)
        return Answer(SuggestionsOutput.write({"suggestions": suggestions}))


class RatingApi(APIView):
    @extend_schema(
        operation_id="getRating",
        summary="The company's public rating snapshot",
        description=(
            "The company's average rating, its number of ratings and up to five reviews, from its public "
            "profile on Google, kept for a while and refreshed by the service: the same answer for every "
            "caller, and never an error for the provider being down (the last answer stays, or null)."
        ),
        tags=["places"],
        responses={200: OpenApiResponse(RatingOutput, description="Rating, count and up to five reviews.")},
    )
    def get(self, request: Request) -> Answer:
        return Answer(RatingOutput.write(services.rating_snapshot()))


class CalculateDistanceLegacyApi(Operation):
    input_serializer = DistanceInput

    @extend_schema(
        operation_id="calculateDistance",
        summary="Estimate a drive (legacy; failures answer 200 with `error`)",
        description=(
            "GET /api/v1/distance as the first version of the interface answers it, without stops. A place "
            "not found, no road between them or a maps provider that does not answer is still a 200, with "
            "the estimate's members null and `error` saying why; invalid parameters are a 400 with `error`."
        ),
        tags=["legacy"],
        parameters=[DistanceInput],
        responses={200: OpenApiResponse(LegacyDistanceOutput, description="The route estimate, or `error`.")},
    )
    def get(self, request: Request) -> Answer:
        params = self.validated(request).validated_data
        try:
            estimate = services.estimate_route(**params)
        except PlacesError as failure:  # the legacy contract: a 200 whose members are null, with `error`
            nothing = {"distance_km": None, "estimated_arrival": None, "duration_s": None, "in_zone_a": None}
            return Answer(LegacyDistanceOutput.write({**nothing, "error": failure.detail}))
        return Answer(LegacyDistanceOutput.write(estimate))


class PlacesAutocompleteLegacyApi(Operation):
    input_serializer = PlacesInput

    @extend_schema(
        operation_id="placesAutocomplete",
        summary="Suggest addresses and places (legacy; failures answer 200 with `error`)",
        description=(
            "GET /api/v1/places as the first version of the interface answers it. A maps provider that does "
            "not answer is still a 200, with no suggestions and `error` saying why; invalid parameters are "
            "a 400 with `error`."
        ),
        tags=["legacy"],
        parameters=[PlacesInput],
        responses={200: OpenApiResponse(LegacySuggestionsOutput, description="At most five suggestions.")},
    )
    def get(self, request: Request) -> Answer:
        params = self.validated(request).validated_data
        try:
            suggestions = services.suggest_places(**params)
        except PlacesError as failure:
            return Answer(LegacySuggestionsOutput.write({"suggestions": [], "error": failure.detail}))
        return Answer(LegacySuggestionsOutput.write({"suggestions": suggestions}))


class GoogleRatingLegacyApi(APIView):
    @extend_schema(
        operation_id="googleRating",
        summary="The company's public rating snapshot (legacy)",
        description="The same answer as GET /api/v1/rating, at the first version's address.",
        tags=["legacy"],
        responses={200: OpenApiResponse(RatingOutput, description="Rating, count and up to five reviews.")},
    )
    def get(self, request: Request) -> Answer:
        return Answer(RatingOutput.write(services.rating_snapshot()))
