"""A booking as its customer and the agent that booked it see it and their choice of text messages (REST,
MCP and the "manage my booking" page share these): who may open a booking and the shape of what it shows.
Its money (what cancelling costs, what was refunded) and the cancel are payments'
(payments/booking_state.py)."""

from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from access.models import ApiToken
from apikit.errors import DomainError
from booking import history, ownership, selectors, trips
from booking.cancellation import CancellationTerms
from booking.models import Booking, BookingStatus
from booking.ride import FollowedFlight, RideProgress, followed_flight, progress
from booking.ride_position import shared_position
from pricing.money import from_cents
from sitekit import phones

NOT_YOURS = "No booking with this reference was made with this token or e-mail address."
# While the ride's messages are still to come, the traveller may choose to get them by SMS as well.
TEXT_MESSAGES_STATES = (BookingStatus.PAID, BookingStatus.CONFIRMED)
NO_PHONE = _("Text messages need a phone number, and this booking has none. Please contact us to add one.")


@dataclass(frozen=True)
class BookingState:
    """What `/api/v1/bookings/{reference}` answers about a booking."""

    booking: Booking
    terms: CancellationTerms
    refunded_cents: int
    manage_url: str

    @property
    def fee(self):
        return from_cents(self.terms.fee_cents)

    @property
    def refund(self):
        return from_cents(self.terms.refund_cents)

    @property
    def refunded(self):
        return from_cents(self.refunded_cents)

    @property
    def flight(self) -> FollowedFlight | None:
        return followed_flight(self.booking)

    @property
    def chauffeur_arrival(self) -> datetime | None:
        """When the chauffeur on the way is expected at the pickup, from the position they share (their
        position itself is the traveller's to see, on the manage page)."""
        shared = shared_position(self.booking)
        return shared.eta if shared is not None else None

    @property
    def driver(self):
        """The chauffeur the customer may know: the one assigned to a confirmed (or completed) ride."""
        shown = self.booking.status in (BookingStatus.CONFIRMED, BookingStatus.COMPLETED)
        return self.booking.driver if shown else None

    @property
    def vehicle(self):
        """The car the chauffeur comes in, so the traveller knows it at the kerb: shown as the driver is."""
        return self.booking.vehicle if self.driver is not None else None

    @cached_property  # read by the answer and by the page more than once: one query
    def ride(self) -> RideProgress:
        """How far the chauffeur has moved the ride on (booking/ride.py), with the time of each move."""
        return progress(self.booking)

    @property
    def cancellation_fee(self):
        return self.booking.cancellation_fee

    @property
    def return_trip(self) -> dict[str, str] | None:
        """The references of a return trip's two rides, this one among them; None for a single ride."""
        legs = trips.legs(self.booking)
        return {"way_out": legs[0].reference, "way_back": legs[1].reference} if len(legs) == 2 else None


def normalized(reference: str) -> str:
    """A reference as typed by a person: `cb-7k3q9x ` is CB-7K3Q9X."""
    return reference.strip().upper()


def find(reference: str, *, token: ApiToken | None = None, email: str = "") -> Booking:
    """The booking, for the token that booked it, for whoever knows the customer's e-mail address, and for
    a token acting for the traveller (booking/ownership.py). An unknown reference and someone else's
    booking get the same answer (nothing to learn by guessing)."""
    booking = selectors.booking_for_reference(normalized(reference))
    if booking is None or not ownership.opens(booking, token=token, email=email):
        raise DomainError(NOT_YOURS, code="not_found")
    return booking


def choose_text_messages(pk: int, *, wanted: bool, actor: str) -> Booking:
    """The traveller's choice to get the ride's messages by SMS as well (sent to the booking's phone).
    Refused, changing nothing, when they want them and the booking has no phone number or one that may
    get no texts (sms/phones.py); choosing what is
    already chosen changes nothing and records nothing."""
    with transaction.atomic():
        booking = selectors.locked_booking(pk)
        if wanted and not booking.phone.strip():
            raise DomainError(NO_PHONE, code="no_phone")
        if wanted:
            phones.ensure_textable(booking.phone)  # a landline, a country staff do not text
        if booking.text_messages != wanted:
            booking.text_messages = wanted
            booking.save(update_fields=["text_messages", "updated_at"])
            said = history.said("Text messages: on") if wanted else history.said("Text messages: off")
            history.record(booking, history.Kind.CHANGE, said, actor=actor)
    return booking


def actor(token: ApiToken | None, booking: Booking) -> str:
    """Who cancelled, for the booking's history: the token that booked it (or another of its OAuth grant)
    or acts for its traveller, else the customer (who sent their e-mail address)."""
    if token is not None and (token.acts_for or ownership.booked_with(booking, token)):
        return f"API token “{token.name}”"
    return "customer"
