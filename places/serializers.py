"""Input and output declarations of the places operations, shared by the legacy endpoints, /api/v1,
OpenAPI and the agent tools. Shapes follow sections 2.1, 2.2 and 2.7 of the interface document."""

from django.conf import settings
from rest_framework import serializers

from apikit.declarations import Declaration
from apikit.fields import FixedDecimalField, FromFieldMixin, LocalDateTimeField, QueryListField, TextField
from places.geo import ZONE_A_RADIUS_KM
from places.providers.base import MAX_STOPS, Endpoint
from places.services import MIN_INPUT

ZONE_A_HELP = f"Pickup or drop-off within {ZONE_A_RADIUS_KM:g} km of Vienna's center (Zone A)."


class DistanceInput(FromFieldMixin, Declaration):
    from_options = dict(max_length=500, source="origin", help_text="Pickup address or place name.")
    to = TextField(max_length=500, source="destination", help_text="Destination address or place name.")
    fromPlaceId = TextField(
        max_length=500,
        required=False,
        allow_blank=True,
        source="origin_place_id",
        help_text="Place id of the pickup, from a suggestion.",
    )
    toPlaceId = TextField(
        max_length=500,
        required=False,
        allow_blank=True,
        source="destination_place_id",
        help_text="Place id of the destination, from a suggestion.",
    )
    pickupDatetime = LocalDateTimeField(
        required=False,
        source="pickup",
        help_text="Pickup time: the arrival is counted from it (default now).",
    )


class StopAddressesField(QueryListField):
    """Stops on the way as addresses, in order (`["Hotel Sacher", "Stephansplatz"]`; in a query
    `stops=Hotel Sacher|Stephansplatz`)."""

    child = TextField(max_length=500)
    query_delimiter = "|"  # addresses hold commas

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", MAX_STOPS)
        super().__init__(**kwargs)

    def to_internal_value(self, data) -> tuple[Endpoint, ...]:  # type: ignore[override]  # route endpoints
        return tuple(Endpoint(text) for text in super().to_internal_value(data))


class V1DistanceInput(DistanceInput):
    """The drive with stops on the way (the legacy endpoint takes none)."""

    stops = StopAddressesField(
        help_text=f"Stops on the way, in order, at most {MAX_STOPS} (in a query separated by `|`: "
        "stops=Hotel Sacher|Stephansplatz): the distance, duration and Zone A run through them.",
    )


class DistanceOutput(Declaration):
    distance = FixedDecimalField(
        max_digits=8, decimal_places=1, source="distance_km", help_text="Road distance in km."
    )
    estimatedArrival = LocalDateTimeField(source="estimated_arrival")
    duration = serializers.IntegerField(source="duration_s", help_text="Driving time in seconds.")
    inZoneA = serializers.BooleanField(source="in_zone_a", help_text=ZONE_A_HELP)


class LegacyDistanceOutput(DistanceOutput):
    """The contract's legacy answer: every figure null, and `error`, when the route could not be computed."""

    distance = FixedDecimalField(
        max_digits=8,
        decimal_places=1,
        source="distance_km",
        allow_null=True,
        help_text="Road distance in km.",
    )
    estimatedArrival = LocalDateTimeField(source="estimated_arrival", allow_null=True)
    duration = serializers.IntegerField(
        source="duration_s", allow_null=True, help_text="Driving time in seconds."
    )
    inZoneA = serializers.BooleanField(source="in_zone_a", allow_null=True, help_text=ZONE_A_HELP)
    error = serializers.CharField(required=False, help_text="Present when the route could not be computed.")


class PlacesInput(Declaration):
    input = TextField(
        min_length=MIN_INPUT,
        max_length=200,
        source="text",
        help_text=f"What the traveller typed ({MIN_INPUT}+ characters).",
    )
    sessionToken = TextField(
        required=False,
        max_length=200,
        source="session_token",
        help_text="Autocomplete session (billing) token.",
    )
    locale = serializers.ChoiceField(
        choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE, help_text="Language of the suggestions."
    )


class SuggestionTextOutput(Declaration):
    text = serializers.CharField()


class PlacePredictionOutput(Declaration):
    placeId = serializers.CharField(source="place_id")
    text = SuggestionTextOutput(source="*")
    types = serializers.ListField(child=serializers.CharField())


class SuggestionOutput(Declaration):
    placePrediction = PlacePredictionOutput(source="*")


class SuggestionsOutput(Declaration):
    suggestions = SuggestionOutput(many=True, help_text="At most five.")


class LegacySuggestionsOutput(SuggestionsOutput):
    error = serializers.CharField(required=False, help_text="Present when suggestions could not be fetched.")


class ReviewOutput(Declaration):
    authorName = serializers.CharField(source="author_name")
    rating = serializers.FloatField(allow_null=True)
    text = serializers.CharField()
    relativeTimeDescription = serializers.CharField(source="relative_time_description")


class RatingOutput(Declaration):
    rating = serializers.FloatField(allow_null=True)
    userRatingCount = serializers.IntegerField(source="user_rating_count", allow_null=True)
    reviews = ReviewOutput(many=True)
