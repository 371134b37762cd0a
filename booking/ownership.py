"""Whose bookings a bearer token may see, cancel and make (docs/decisions.md §9). An agency's token (static,
or an OAuth token staff approved) opens the bookings it booked, and an OAuth token also those any token of
its grant booked, so refreshing a token loses none. A token that acts for a traveller (an OAuth grant the
traveller consented to, `ApiToken.acts_for`) opens that traveller's bookings, by their e-mail address,
and nothing else, whatever e-mail address it sends; and it books in that traveller's name only."""

from dataclasses import replace
from typing import Protocol

from django.db.models import QuerySet

from access.models import ApiToken
from apikit.errors import DomainError
from booking.checkout import BookingRequest
from booking.models import Booking

# The API's words (its messages are part of its contract); no page shows it: the booking page has no token.
EMAIL_NOT_YOURS = "This token books for {email} only: leave the e-mail address out, or send that one."


def same_address(first: str, second: str) -> bool:
    """E-mail addresses as people type them: spaces around and letter case do not count. Lower-cased as the
    database's case-insensitive match and the sign-in do; case folding would make "straße" "strasse"."""
    return bool(first.strip() and second.strip()) and first.strip().lower() == second.strip().lower()


class Owned(Protocol):
    """What a token may open: a booking, or a request for a quote."""

    email: str
    api_token_id: int | None


def booked_with(booking: Owned, token: ApiToken | None) -> bool:
    """Whether the token booked it, or another token of the same OAuth grant did (an earlier one,
    replaced when the client refreshed)."""
    if token is None or booking.api_token_id is None:
        return False
    if booking.api_token_id == token.pk:
        return True
    return (
        token.grant_id is not None
        and ApiToken.objects.filter(pk=booking.api_token_id, grant_id=token.grant_id).exists()
    )


def opens(booking: Owned, *, token: ApiToken | None, email: str = "") -> bool:
    """Whether a caller with this token (or none) and this e-mail address may open the booking."""
    if token is not None and token.acts_for:
        return same_address(booking.email, token.acts_for)  # the e-mail sent does not matter
    return booked_with(booking, token) or same_address(booking.email, email)


def bookings_of(token: ApiToken) -> QuerySet[Booking]:
    """The bookings a token lists: its traveller's, or those it (or its grant) booked."""
    if token.acts_for:
        return Booking.objects.filter(email__iexact=token.acts_for.strip())
    if token.grant_id is not None:
        return Booking.objects.filter(api_token__grant_id=token.grant_id)
    return Booking.objects.filter(api_token_id=token.pk)


def in_their_name(ride: BookingRequest, token: ApiToken | None) -> BookingRequest:
    """The ride a token may book: a traveller's token books with the traveller's e-mail address (the
    confirmation and the booking's page go there), and refuses another, storing nothing."""
    if token is None or not token.acts_for:
        return ride
    if ride.email.strip() and not same_address(ride.email, token.acts_for):
        raise DomainError(EMAIL_NOT_YOURS.format(email=token.acts_for), code="email_not_yours", field="email")
    return replace(ride, email=token.acts_for)
