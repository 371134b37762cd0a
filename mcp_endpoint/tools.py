"""The agent tools (section 4.4 of the interface document, docs/decisions.md §10): each one is a thin door
over a service, validated with the same input declaration as its /api/v1 operation and answered with the
same output declaration, so `structuredContent` is the v1 response and no rule exists twice."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils.functional import Promise, lazy
from django.utils.text import format_lazy
from rest_framework import serializers

from access.models import ApiToken, Scope
from apikit.declarations import Declaration
from apikit.problems import classify, flatten_errors, problem_body
from apikit.renderers import Written
from booking import availability, cancellation, lifecycle, on_account, ownership
from booking.checkout import CheckoutResult
from booking.models import BookingChannel
from booking.serializers import (
    AgentCheckoutInput,
    AvailabilityInput,
    AvailabilityOutput,
    BookingAccessInput,
    BookingListInput,
    BookingListOutput,
    BookingStateOutput,
    V1CheckoutOutput,
)
from dispatch import change_quotes
from dispatch.serializers import (
    AgentChangeToMakeInput,
    AgentChangeWantedInput,
    ChangeMadeOutput,
    ChangeQuoteOutput,
    change_shown,
    change_wanted,
    quote_shown,
)
from mcp_endpoint.schemas import (
    argument_errors,
    json_schema,
    listed_input_schema,
    listed_output_schema,
    without_nulls,
)
from payments import booking_state, idempotency
from payments.checkout import start_checkout
from payments.models import IdempotentCheckout
from places import services as places
from places.geo import ZONE_A_RADIUS_KM
from places.serializers import DistanceOutput, PlacesInput, SuggestionsOutput, V1DistanceInput
from pricing import services as pricing
from pricing.quote import MIN_HOURLY_HOURS
from pricing.serializers import ExtrasInput, ExtrasOutput, PriceInput, PriceOutput
from quote_requests import services as quote_requests
from quote_requests.serializers import QuoteRequestAccessInput, QuoteRequestInput, QuoteRequestOutput


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str | Promise  # a lazy text is written out when listed
    input: type[serializers.Serializer]
    output: type[Declaration]
    scope: str
    run: Callable[[Any, ApiToken], object]  # an `input` instance, caller → what `output` renders
    v1_operation: str  # the REST operation whose response `structuredContent` equals
    read_only: bool = True
    destructive: bool = False  # cancels what a customer booked
    idempotent: bool | None = None  # repeating the call changes nothing more; default: the read-only tools
    # Calls with the same token and arguments within this time return the first answer (a retry after a
    # timeout books nothing twice); None for tools that change nothing.
    retry_window: timedelta | None = None

    @property
    def alias(self) -> str:
        """The name for agent clients that reject dots (`booking_estimate_distance`)."""
        return self.name.replace(".", "_")

    @property
    def input_schema(self) -> dict:
        return listed_input_schema(self.input)

    def listing(self, *, underscore: bool = False) -> dict:
        """The MCP Tool object of tools/list."""
        return {
            "name": self.alias if underscore else self.name,
            "title": self.title,
            "description": spelled(str(self.description), underscore=underscore),
            "inputSchema": self.input_schema,
            "outputSchema": listed_output_schema(self.output),
            "annotations": {
                "title": self.title,
                "readOnlyHint": self.read_only,
                "destructiveHint": self.destructive,
                # each checkout call stores a new booking; a second cancel changes nothing
                "idempotentHint": self.read_only if self.idempotent is None else self.idempotent,
                "openWorldHint": not self.read_only,  # a checkout or a refund reaches the payment provider
            },
            "_meta": {"requiredScope": self.scope},
        }


def _estimate_distance(valid: serializers.Serializer, token: ApiToken):
    return places.estimate_route(**valid.validated_data)


def _check_availability(valid: serializers.Serializer, token: ApiToken):
    return availability.check_availability(**valid.validated_data)


def _calculate_price(valid: serializers.Serializer, token: ApiToken):
    return pricing.quote_price(**valid.validated_data)


def _list_extras(valid: serializers.Serializer, token: ApiToken):
    return {"extras": pricing.offered_extras()}


def _autocomplete(valid: serializers.Serializer, token: ApiToken):
    return {"suggestions": places.suggest_places(**valid.validated_data)}


def _create_checkout(valid: AgentCheckoutInput, token: ApiToken):
    ride = ownership.in_their_name(valid.booking_request(), token)  # a traveller's token: their address
    if valid.validated_data["payment_method"] == "account":
        return on_account.checkout_on_account(
            amount_cents=valid.validated_data["amount_cents"],
            ride=ride,
            account=token.company_account,
            channel=BookingChannel.AGENT,
            api_token_id=token.pk,
        )
    return start_checkout(
        amount_cents=valid.validated_data["amount_cents"],
        ride=ride,
        channel=BookingChannel.AGENT,
        api_token_id=token.pk,
    )


def _request_quote(valid: QuoteRequestInput, token: ApiToken):
    asked = quote_requests.in_their_name(valid.asked(), token)
    return quote_requests.request_quote(asked, channel=BookingChannel.AGENT, api_token_id=token.pk)


def _get_quote(valid: QuoteRequestAccessInput, token: ApiToken):
    return quote_requests.find(valid.validated_data["reference"], token=token)


def _get_booking(valid: BookingAccessInput, token: ApiToken):
    return booking_state.state_of(lifecycle.find(token=token, **valid.validated_data))


def _list_bookings(valid: BookingListInput, token: ApiToken):
    return booking_state.list_bookings(token=token, **valid.validated_data)


def _cancel_booking(valid: BookingAccessInput, token: ApiToken):
    booking = lifecycle.find(token=token, **valid.validated_data)
    return booking_state.cancel(booking, actor=lifecycle.actor(token, booking))


def _changed_booking(valid: serializers.Serializer, token: ApiToken):
    data = valid.validated_data
    return lifecycle.find(token=token, reference=data["reference"], email=data.get("email", ""))


def _quote_change(valid: AgentChangeWantedInput, token: ApiToken):
    booking = _changed_booking(valid, token)
    wanted = valid.validated_data
    quoted = change_quotes.quote_change(booking, **change_wanted(wanted))
    return quote_shown(quoted)


def _change_booking(valid: AgentChangeToMakeInput, token: ApiToken):
    booking = _changed_booking(valid, token)
    actor = f"{lifecycle.actor(token, booking)} (MCP)"  # the history's words: who, through which door
    return change_shown(change_quotes.make_change(booking, valid.validated_data["quote_id"], actor=actor))


# Read when the tools are listed: the address of the terms a checkout accepts (README "Legal pages").
terms_url = lazy(lambda: f"{settings.PUBLIC_BASE_URL}/en/terms", str)


TOOLS: tuple[Tool, ...] = (
    Tool(
        name="booking.estimate_distance",
        title="Estimate a drive",
        description=(
            "Estimate a chauffeur drive in and around Vienna: road distance in km (`distance`), driving "
            "time in seconds (`duration`), the estimated arrival and whether the ride touches Zone A "
            f"({ZONE_A_RADIUS_KM:g} km around Vienna's centre, `inZoneA`). Addresses can be free text; "
            "a placeId from places.autocomplete is more precise. `stops`: places on the way, in order; the "
            "route runs through them. Pass `distance` and `inZoneA` on to booking.calculate_price."
        ),
        input=V1DistanceInput,
        output=DistanceOutput,
        scope=Scope.READ.value,
        run=_estimate_distance,
        v1_operation="GET /api/v1/distance",
    ),
    Tool(
        name="booking.check_availability",
        title="Check a pickup time",
        description=format_lazy(
            "Check whether a pickup time can still be booked. {policy} Answers `available`, the `reason` "
            "when not, and the `earliestPickup`. Date-times without an offset are Vienna local time; "
            "`bookingDatetime` (default now) asks 'what if I booked at that moment'.",
            policy=availability.current_policy_text(),
        ),
        input=AvailabilityInput,
        output=AvailabilityOutput,
        scope=Scope.READ.value,
        run=_check_availability,
        v1_operation="GET /api/v1/availability",
    ),
    Tool(
        name="booking.calculate_price",
        title="Price a ride",
        description=(
            "Price a ride from the operator's tariffs: gross EUR including VAT (`priceEur`), with net, VAT "
            "and the lines it is made of. Give `distanceKm` and `inZoneA` from booking.estimate_distance "
            "(a ride outside Zone A costs more). Hourly hire: bookingType `hourly` with durationHours "
            f"(at least {MIN_HOURLY_HOURS:g}). Optional: `passengers` and `luggage` (checked against the "
            "class: `vehicle_too_small` names the classes that fit) and `extras` from booking.list_extras "
            "(`code` or `code:quantity`), each a line of the price; `stopWaits`: the minutes at each stop on "
            "the way (0 for none), with `distanceKm` estimated through the same `stops`. "
            "booking.create_checkout expects `amount` = priceEur x 100, with the same passengers, luggage, "
            "extras and stops in its bookingData."
        ),
        input=PriceInput,
        output=PriceOutput,
        scope=Scope.READ.value,
        run=_calculate_price,
        v1_operation="GET /api/v1/price",
    ),
    Tool(
        name="places.autocomplete",
        title="Suggest addresses",
        description=(
            "Suggest up to five addresses or places (hotels, the airport, stations, districts) for what a "
            f"traveller typed ({places.MIN_INPUT} characters or more). Use a suggestion's text as "
            "`from`/`to` and its placeId as fromPlaceId/toPlaceId."
        ),
        input=PlacesInput,
        output=SuggestionsOutput,
        scope=Scope.READ.value,
        run=_autocomplete,
        v1_operation="GET /api/v1/places",
    ),
    Tool(
        name="booking.create_checkout",
        title="Book a ride and open its payment page",
        description=format_lazy(
            "Book a ride: stores the booking (reference CB-...) and opens a hosted checkout page; give the "
            "traveller the returned `url` to pay there. Nothing is charged before they pay. `amount` must "
            "be the server's price in EUR cents (booking.calculate_price priceEur x 100), otherwise the "
            "result is an `amount_mismatch` error carrying `expectedAmount`. bookingData needs from, to, "
            "pickupDatetime (checked like booking.check_availability) and vehicleClass; add name, email "
            "and phone so the chauffeur can reach the traveller. Safe to retry: the same arguments within 10 "
            "minutes return the same booking and page, unless that booking was cancelled, expired or its "
            "payment failed: then it books anew. Booking accepts the operator's current terms and "
            "conditions ({terms}, with the cancellation terms booking.get_booking states) for the "
            "traveller: show them that link before you book. A token tied to a company account may book "
            "on it instead (paymentMethod `account`) for a traveller whose email the account allows: paid "
            "at once, no page (`url` null), the company's monthly invoice lists it. Optional "
            "bookingData.billingAddress and billingVatId go on the invoice; passengers, luggage, extras "
            "and stops (as priced: `[{{address, waitMinutes}}]`) go to the chauffeur. A return trip: add "
            "bookingData.wayBack `{{pickupDatetime}}` (after the way out arrives; from, to, flightNumber "
            "and stops optional: default the way out's addresses reversed) and send both rides' prices "
            "together as `amount` (price the way back as its own ride); the answer's `wayBack` names the "
            "second ride's reference, each ride is looked up and cancelled on its own. A token signed in "
            "for a traveller books in their name: leave bookingData.email out (theirs is used); another "
            "address is refused (`email_not_yours`).",
            terms=terms_url(),
        ),
        input=AgentCheckoutInput,
        output=V1CheckoutOutput,
        scope=Scope.WRITE.value,
        run=_create_checkout,
        v1_operation="POST /api/v1/checkout",
        read_only=False,
        retry_window=timedelta(minutes=10),
    ),
    Tool(
        name="booking.get_booking",
        title="Look up a booking",
        description=(
            "A booking's state (pending_payment, paid, confirmed once a chauffeur is assigned, completed, "
            "cancelled, expired, payment_failed), its ride and price, the chauffeur's name and phone and "
            "the car (`vehicle`: model and plate) once confirmed, `ride`: where the chauffeur is on the "
            "ride's day (accepted, on_the_way, arrived, on_board, completed or no_show, each with its "
            "time), and `cancellation`: whether it can be cancelled now, the fee kept and the refund. "
            "Give the `reference` from booking.create_checkout or booking.list_bookings; a booking this "
            "token did not make also needs the traveller's `email` as given when booking (a token signed "
            "in for a traveller opens that traveller's bookings only, and needs no `email`). `manageUrl` is "
            "the traveller's own page."
        ),
        input=BookingAccessInput,
        output=BookingStateOutput,
        scope=Scope.READ.value,
        run=_get_booking,
        v1_operation="GET /api/v1/bookings/{reference}",
    ),
    Tool(
        name="booking.list_bookings",
        title="List the traveller's bookings",
        description=(
            "The bookings this token may see, each as booking.get_booking answers it (reference, status, "
            "pickup time, from, to, vehicle class, price, chauffeur, ride, cancellation terms). Signed in "
            "for a traveller: that traveller's bookings; otherwise the bookings this token made. `when`: "
            "`upcoming` (default: today's rides and later ones, soonest first), `past` (earlier ones, "
            "latest first) or `all`. Up to `limit` (default 20, at most 50) per call; while `nextCursor` "
            "is not null, pass it as `cursor` (with the same `when`) for more."
        ),
        input=BookingListInput,
        output=BookingListOutput,
        scope=Scope.READ.value,
        run=_list_bookings,
        v1_operation="GET /api/v1/bookings",
    ),
    Tool(
        name="booking.cancel_booking",
        title="Cancel a booking",
        description=format_lazy(
            "Cancel a booking under the operator's cancellation policy ({policy}). The fee is kept, the rest "
            "of what was paid goes back the way it was paid. Check booking.get_booking's `cancellation` "
            "and confirm the fee with the traveller first. Same arguments as booking.get_booking; "
            "cancelling a cancelled booking again answers it unchanged.",
            policy=cancellation.current_policy_text(),
        ),
        input=BookingAccessInput,
        output=BookingStateOutput,
        scope=Scope.WRITE.value,
        run=_cancel_booking,
        v1_operation="POST /api/v1/bookings/{reference}/cancel",
        read_only=False,
        destructive=True,
        idempotent=True,
    ),
    Tool(
        name="booking.list_extras",
        title="List the extras",
        description=(
            "The extras a ride may have: child seats by age group (infant_carrier, child_seat, booster), a "
            "name sign at arrivals, bulky luggage … each with its gross price in EUR (per piece or per "
            "booking), its names in English and German and how many one ride may have in each vehicle class "
            "(`maxima`; a class not named does not offer it). Pass the codes as `extras` to "
            "booking.calculate_price and in booking.create_checkout's bookingData."
        ),
        input=ExtrasInput,
        output=ExtrasOutput,
        scope=Scope.READ.value,
        run=_list_extras,
        v1_operation="GET /api/v1/extras",
    ),
    Tool(
        name="booking.request_quote",
        title="Ask staff for a quote",
        description=(
            "Ask the operator's staff to quote a trip the tariff cannot price: more passengers than the "
            "largest class seats (booking.calculate_price's `vehicle_too_small` with no `fittingClasses`), "
            "several cars, several days, a route outside the tariff's area. Give where and when, "
            "`passengers` and `luggage`, what is needed in `details` (in the traveller's words), and the "
            "traveller's `name` and `email` (the offer goes there, usually within a working day; they get "
            "an acknowledgement at once) and `phone`. Answers the request with its `reference` (QR-…); "
            "booking.get_quote tells how it stands. Nothing is booked or charged."
        ),
        input=QuoteRequestInput,
        output=QuoteRequestOutput,
        scope=Scope.WRITE.value,
        run=_request_quote,
        v1_operation="POST /api/v1/quote-requests",
        read_only=False,
        retry_window=timedelta(minutes=10),
    ),
    Tool(
        name="booking.get_quote",
        title="Look up a quote request",
        description=(
            "A quote request this token made (or one its traveller made), by its `reference` (QR-…): "
            "`status` open (staff have not answered yet), answered (staff e-mailed the traveller an offer or "
            "a reply) or closed, with the trip as asked."
        ),
        input=QuoteRequestAccessInput,
        output=QuoteRequestOutput,
        scope=Scope.READ.value,
        run=_get_quote,
        v1_operation="GET /api/v1/quote-requests/{reference}",
    ),
    Tool(
        name="booking.quote_change",
        title="Price a change of a booking",
        description=(
            "Price a change of a booking's pickup time (`pickupDatetime`), `vehicleClass`, pickup address "
            "(`from`), destination (`to`), `stops`, `passengers`, `luggage` or `extras`, any of them "
            "together, without changing anything (new addresses and stops are routed again; `stops` and "
            "`extras` name all of them as they become): the ride's new `price` line by line, "
            "`differenceEur` (above 0: more to pay) and `settlement` (`refund`: `settledEur` goes back to "
            "the traveller's payment; `pay`: they pay `settledEur` through a link; `none`; `invoiced`: on "
            "the company's monthly invoice). "
            "Show this to the traveller and, once they agree, pass its `id` to booking.change_booking within "
            "10 minutes. Same `reference` and `email` as booking.get_booking. The lead time applies "
            "(`lead_time`); `not_changeable` once the ride is within the lead time or the chauffeur has set "
            "off, the booking is cancelled or completed, its car is assigned and the class would change, or "
            "it is an hourly hire, a tour or a return trip whose addresses or stops would change, or its "
            "car cannot take the party or extras; `vehicle_too_small` names the classes that fit more "
            "passengers or luggage. A return trip's way back is a booking of its own: change it by its own "
            "`reference`."
        ),
        input=AgentChangeWantedInput,
        output=ChangeQuoteOutput,
        scope=Scope.WRITE.value,
        run=_quote_change,
        v1_operation="POST /api/v1/bookings/{reference}/change-quotes",
        read_only=False,
        idempotent=False,
    ),
    Tool(
        name="booking.change_booking",
        title="Make a priced change of a booking",
        description=(
            "Make the change booking.quote_change priced: pass its `id` as `changeQuoteId` with the same "
            "`reference` (and `email`). Refunds a lower price to the traveller's payment; a higher one "
            "answers `paymentUrl` (also e-mailed to the traveller): give it to them. The chauffeur and the "
            "traveller are told. Each quote is made once, while the booking is as quoted: "
            "`stale_change_quote` means ask booking.quote_change again (after a lost answer, "
            "booking.get_booking shows whether the change was made)."
        ),
        input=AgentChangeToMakeInput,
        output=ChangeMadeOutput,
        scope=Scope.WRITE.value,
        run=_change_booking,
        v1_operation="POST /api/v1/bookings/{reference}/changes",
        read_only=False,
        destructive=True,
    ),
)

_BY_NAME = {name: tool for tool in TOOLS for name in (tool.name, tool.alias)}


def find(name: str) -> Tool | None:
    """A tool by its name or its underscore alias."""
    return _BY_NAME.get(name)


def spelled(text: str, *, underscore: bool) -> str:
    """A text that names tools, with the names a client listing underscore names knows them by."""
    if underscore:
        for tool in TOOLS:
            text = text.replace(tool.name, tool.alias)
    return text


def call(tool: Tool, arguments: dict, *, token: ApiToken) -> dict:
    """Run a tool for the caller's token: the MCP CallToolResult. Refused arguments and domain failures
    are results with `isError` carrying the problem as /api/v1 would write it (code, detail, hint …)."""
    try:
        valid = validated(tool, arguments)
        structured = _run(tool, valid, token)
    except Exception as failure:  # classify() turns every failure into a problem and logs unexpected ones
        return _result(problem_body(classify(failure, tool.input), for_tools=True), is_error=True)
    return _result(structured, is_error=False)


def _run(tool: Tool, valid: serializers.Serializer, token: ApiToken) -> dict:
    def run() -> idempotency.Made:
        result = tool.run(valid, token)
        booking_id = result.booking.pk if isinstance(result, CheckoutResult) else None
        return idempotency.Made(200, tool.output.write(result), booking_id)

    if tool.retry_window is None:
        return run().body
    arguments = valid.initial_data  # as validated: an optional argument sent as null is one left out
    key = f"mcp:{tool.name}:{idempotency.fingerprint(arguments)}"
    # An OAuth token's retries count per grant: a refresh between two tries must not book twice.
    caller = f"grant:{token.grant_id}" if token.grant_id else f"token:{token.pk}"
    return idempotency.once(
        door=IdempotentCheckout.Door.MCP,
        caller=caller,
        key=key,
        body=arguments,
        run=run,
        keep_for=tool.retry_window,
        anew_when_spent=True,  # the key is derived from the arguments: booking again after a cancel is new
    ).body


def validated(tool: Tool, arguments: dict) -> serializers.Serializer:
    """The arguments through the tool's declaration; a type or a name its inputSchema does not allow is
    refused too, so that what the schema promises is what is accepted (no "7400" for an integer)."""
    schema = json_schema(tool.input, "request")
    arguments = without_nulls(schema, arguments)
    serializer = tool.input(data=arguments)
    errors = {} if serializer.is_valid() else flatten_errors(serializer.errors)
    errors.update(argument_errors(schema, arguments))
    if errors:
        raise serializers.ValidationError(errors)
    return serializer


def _result(structured: dict, *, is_error: bool) -> dict:
    """The CallToolResult. A problem travels as text only: `structuredContent` must match the tool's
    outputSchema (2025-11-25, Server › Tools › Output Schema), and clients check that even on errors."""
    written = Written(structured)
    content = {"content": [{"type": "text", "text": written.encoded_json}], "isError": is_error}
    return content if is_error else {**content, "structuredContent": written}
