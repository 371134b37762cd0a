"""OpenAPI links: how an answer leads to the next call of the booking flow (checkout → read → change or
cancel), so clients and schemathesis's stateful run can follow a booking by its reference."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Link:
    source: str  # the operationId whose answer the link starts from
    status: str
    name: str
    target: str  # the operationId it leads to
    description: str
    parameters: dict[str, str] = field(default_factory=dict)
    request_body: dict[str, str] | None = None


def _by_reference(source: str, status: str, pointer: str, which: str) -> list[Link]:
    """Read (unless the answer is its read), cancel or quote a change of the booking an answer names at
    `pointer`."""
    reference = {"path.reference": f"$response.body#{pointer}"}
    read = Link(source, status, "GetBooking", "getBooking", f"Read {which} as it is now.", reference)
    return [
        *([read] if source != read.target else []),
        Link(source, status, "CancelBooking", "cancelBooking", f"Cancel {which}.", reference),
        Link(
            source,
            status,
            "QuoteBookingChange",
            "quoteBookingChange",
            f"Ask what a change of {which} would cost.",
            reference,
        ),
    ]


LINKS = (
    *_by_reference("createCheckout", "201", "/reference", "the booking made"),
    # amount_mismatch names the server's price: the same ride checked out again at that amount.
    Link(
        "createCheckout",
        "400",
        "CheckOutAtExpectedAmount",
        "createCheckout",
        "After `amount_mismatch`: the same booking data again, with the amount the server computed "
        "(`expectedAmount`, EUR cents).",
        request_body={
            "amount": "$response.body#/expectedAmount",
            "bookingData": "$request.body#/bookingData",
        },
    ),
    *_by_reference("getBooking", "200", "/reference", "this booking"),
    Link(
        "cancelBooking",
        "200",
        "GetBooking",
        "getBooking",
        "Read the cancelled booking as it is now.",
        {"path.reference": "$response.body#/reference"},
    ),
    Link(
        "quoteBookingChange",
        "201",
        "ChangeBooking",
        "changeBooking",
        "Make the quoted change (its `id` is the `changeQuoteId`, single use, until `expiresAt`).",
        {"path.reference": "$response.body#/reference"},
        {"changeQuoteId": "$response.body#/id"},
    ),
    *_by_reference("changeBooking", "200", "/booking/reference", "the changed booking"),
    *_by_reference("listBookings", "200", "/bookings/0/reference", "the first booking of the page"),
    Link(
        "createQuoteRequest",
        "201",
        "GetQuoteRequest",
        "getQuoteRequest",
        "Read the quote request as it is now: `offer` once staff answered.",
        {"path.reference": "$response.body#/reference"},
    ),
)


def add_links(result: dict, generator, request, public) -> dict:
    """Adds LINKS to the answers they start from; an operationId or status missing from the document
    fails the document rather than leave a link that leads nowhere."""
    operations = {
        operation["operationId"]: operation
        for item in result.get("paths", {}).values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    for link in LINKS:
        if link.target not in operations:
            raise LookupError(f"OpenAPI link {link.name} leads to {link.target}, which the document lacks")
        responses = operations[link.source]["responses"] if link.source in operations else {}
        if link.status not in responses:
            raise LookupError(
                f"OpenAPI link {link.name} starts from {link.source} {link.status}, which is not there"
            )
        # A copy: answers the hooks before wrote may be one object shared by several operations.
        response = responses[link.status] = dict(responses[link.status])
        declared: dict = {"operationId": link.target, "description": link.description}
        if link.parameters:
            declared["parameters"] = link.parameters
        if link.request_body is not None:
            declared["requestBody"] = link.request_body
            # The body as written, as OpenAPI means it; schemathesis would merge it into one it generated.
            declared["x-schemathesis"] = {"merge_body": False}
        response["links"] = {**response.get("links", {}), link.name: declared}
    return result
