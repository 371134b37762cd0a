"""A booking as its customer and the agent that booked it see it, with its money: what cancelling costs,
what was refunded (REST, MCP and the "manage my booking" page share these). booking/lifecycle.py finds the
booking and shapes the answer; booking/listing.py pages a token's bookings."""

from django.db.models import F

from access.models import ApiToken
from booking import links, listing, ownership
from booking.cancellation import CancellationRules, cancellation_rules
from booking.lifecycle import BookingState
from booking.models import Booking
from payments import cancellation, refunds


def state_of(booking: Booking, *, rules: CancellationRules | None = None) -> BookingState:
    """`rules`: the cancellation policy, read once for a list of bookings."""
    return BookingState(
        booking=booking,
        terms=cancellation.terms(booking, rules=rules),
        refunded_cents=refunds.refunded_cents(booking),
        manage_url=links.manage_url(booking.reference),
    )


def cancel(booking: Booking, *, actor: str) -> BookingState:
    """Cancel under the policy (docs/decisions.md §9); a cancelled booking answers as it is."""
    return state_of(cancellation.cancel(booking.pk, actor=actor))


def list_bookings(
    *, token: ApiToken, when: str = listing.UPCOMING, limit: int = listing.DEFAULT_LIMIT, cursor: str = ""
) -> listing.BookingPage:
    """`upcoming`: pickups from today (in Vienna) on, soonest first, then those without a pickup time;
    `past`: pickups before today, latest first; `all`: every one, latest pickup first (none last)."""
    ascending = when == listing.UPCOMING
    found = listing.chosen(ownership.bookings_of(token), when, listing.start_of_today())
    if cursor:
        found = found.filter(listing.after(listing.parse_cursor(cursor), ascending=ascending))
    order = F("pickup_at").asc(nulls_last=True) if ascending else F("pickup_at").desc(nulls_last=True)
    found = found.order_by(order, "pk" if ascending else "-pk")
    page = list(
        found.select_related(
            "driver", "vehicle", "collective_invoice_line__invoice", "way_out", "way_back", "flight_watch"
        ).prefetch_related("refunds", "ride_steps", "payment_shares__payment")[: limit + 1]
    )
    rules = cancellation_rules()  # once for the page, not once per booking
    shown = page[:limit]
    more = len(page) > limit
    return listing.BookingPage(
        [state_of(booking, rules=rules) for booking in shown],
        listing.cursor_of(shown[-1]) if more else None,
    )
