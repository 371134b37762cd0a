"""/api/v1's door to a booking's changes: a change quote first, then the change made under its id
(dispatch/change_quotes.py)."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request

from access.models import Scope
from apikit.renderers import Answer
from dispatch import change_quotes
from dispatch.serializers import (
    ChangeMadeOutput,
    ChangeQuoteOutput,
    ChangeToMakeInput,
    ChangeWantedInput,
    change_shown,
    change_wanted,
    quote_shown,
)
from payments.api import LIFECYCLE_PROBLEMS, REFERENCE_PATH, BookingOperation

DOOR = "REST API"
CHANGE_PROBLEMS = [
    "lead_time",
    "not_changeable",
    "stale_change_quote",
    "vehicle_too_small",
    "too_many_extras",
    "unknown_extra",
    "too_many_stops",
    "route_not_found",
    "upstream_unavailable",
]


def change_schema(**kwargs):
    return extend_schema(
        tags=["booking"],
        auth=[{"bearerAuth": [Scope.WRITE.value]}, {}],  # security requirements
        parameters=[OpenApiParameter("reference", str, OpenApiParameter.PATH, description=REFERENCE_PATH)],
        extensions={"x-error-statuses": [*LIFECYCLE_PROBLEMS, *CHANGE_PROBLEMS]},
        **kwargs,
    )


class ChangeQuotesApi(BookingOperation):
    scope = Scope.WRITE.value
    input_serializer = ChangeWantedInput

    @change_schema(
        operation_id="quoteBookingChange",
        summary="Price a change of a booking's pickup, class, route, party or extras; changes nothing",
        description=(
            "Send the bearer token that booked it (scope booking.write), or the customer's `email` (a token "
            "that acts for a traveller: their bookings only). Answers the ride's new price line by line, "
            "the difference and what happens to it (`settlement`), under an `id` valid for 10 minutes: "
            "POST /api/v1/bookings/{reference}/changes makes the change. The lead time applies; 409 "
            "`not_changeable` when the booking's state, its car or its chauffeur having set off no longer "
            "allows it, for addresses and stops staff agreed otherwise (an hourly hire's, a tour's, a return "
            "trip's, a price set by hand, a flight pickup, a paid ride crossing the border differently), for "
            "extras of a price agreed with staff or that the car assigned lacks. New addresses (`from`, "
            "`to`) and `stops` are routed again; `passengers` and `luggage` are checked against the class "
            "(400 `vehicle_too_small`); `stops` and `extras` as a checkout's (400 `too_many_stops`, "
            "`too_many_extras`, `unknown_extra`). A return trip's "
            "way back is a booking of its own: change it by its own reference. A change that leaves the "
            "pickup, class, route, party and extras as booked (no member given, or each as it is) is 400 "
            "`invalid_request`. Nothing changes."
        ),
        request=ChangeWantedInput,
        responses={201: OpenApiResponse(ChangeQuoteOutput, description="The change, priced.")},
    )
    def post(self, request: Request, reference: str) -> Answer:
        booking, _ = self.booking(request, reference)
        wanted = self.validated(request).validated_data
        quoted = change_quotes.quote_change(booking, **change_wanted(wanted))
        return Answer(ChangeQuoteOutput.write(quote_shown(quoted)), status=201)


class ChangesApi(BookingOperation):
    scope = Scope.WRITE.value
    input_serializer = ChangeToMakeInput

    @change_schema(
        operation_id="changeBooking",
        summary="Make a change quoted before",
        description=(
            "Makes the change of a change quote of this booking (`changeQuoteId`), once, while the booking "
            "and its price are as quoted (409 `stale_change_quote` otherwise: ask for a new quote). A lower "
            "price is refunded to the payment it came from; a higher one is paid through `paymentUrl`, also "
            "e-mailed to the customer. The chauffeur and the customer are told; the booking's history names "
            "the token and the door."
        ),
        request=ChangeToMakeInput,
        responses={200: OpenApiResponse(ChangeMadeOutput, description="The booking, changed.")},
    )
    def post(self, request: Request, reference: str) -> Answer:
        booking, who = self.booking(request, reference)
        quote_id = self.validated(request).validated_data["quote_id"]
        made = change_quotes.make_change(booking, quote_id, actor=f"{who} ({DOOR})")  # the history's words
        return Answer(ChangeMadeOutput.write(change_shown(made)))
