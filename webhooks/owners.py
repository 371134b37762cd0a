"""Whose bookings an endpoint hears of: an endpoint staff add hears of every booking; one an API token
adds, only of the bookings that token opens (booking/ownership.py): a traveller's token those of its
traveller's e-mail address, an OAuth token those its grant booked, a static token those it booked. Both
sides are written as the same keys here, so the event's audience and the endpoint's owner meet in one
query."""

from django.db.models import Q

from access.models import ApiToken

EVERY_BOOKING = ""

# An endpoint a token added hears no more once staff revoked that token, or, for an OAuth token (renewed
# every hour), once its consent was withdrawn: the traveller ended the assistant, or staff the grant.
STILL_ALLOWED = Q(api_token__grant__isnull=True, api_token__revoked_at__isnull=True) | Q(
    api_token__grant__isnull=False, api_token__grant__revoked_at__isnull=True
)


def of_token(token: ApiToken) -> str:
    if token.acts_for:
        return of_traveller(token.acts_for)
    if token.grant_id is not None:
        return f"grant:{token.grant_id}"
    return f"token:{token.pk}"


def of_traveller(email: str) -> str:
    return f"traveller:{email.strip().lower()}"


def of_booking(*, email: str, api_token: ApiToken | None) -> list[str]:
    """The keys of every endpoint owner that opens a booking with this e-mail address, booked by this
    token (None: the booking page, staff, a phone booking)."""
    keys = [of_traveller(email)] if email.strip() else []
    if api_token is not None:
        keys.append(f"token:{api_token.pk}")
        if api_token.grant_id is not None:
            keys.append(f"grant:{api_token.grant_id}")
    return keys
