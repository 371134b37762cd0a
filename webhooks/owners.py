"""Whose bookings an endpoint hears of: an endpoint staff add hears of every booking; one an API token
adds, only of the bookings that token opens (booking/ownership.py): a traveller's token those of its
traveller's e-mail address, an OAuth token those its grant booked, a static token those it booked. Both
sides are written as the same keys here, so the event's audience and the endpoint's owner meet in one
query. Who manages an endpoint is a key of its own: a traveller's assistants hear of the same bookings, but
none sees another's endpoints."""

from django.db.models import Q
from django.utils import timezone

from access.models import ApiToken

EVERY_BOOKING = ""


def still_allowed() -> Q:
    """An endpoint a token added hears no more once that token is gone, expired or revoked by staff, or,
    for an OAuth token (renewed every hour), once its consent was withdrawn: the traveller ended the
    assistant, or staff the grant. A consent that lapsed loses its endpoints with its traveller's address
    (privacy/retention.py)."""
    static = Q(api_token__grant__isnull=True, api_token__revoked_at__isnull=True) & (
        Q(api_token__expires_at__isnull=True) | Q(api_token__expires_at__gt=timezone.now())
    )
    oauth = Q(api_token__grant__isnull=False, api_token__grant__revoked_at__isnull=True)
    return Q(api_token__isnull=False) & (static | oauth)


def of_token(token: ApiToken) -> str:
    """Whose bookings an endpoint the token adds hears of."""
    if token.acts_for:
        return of_traveller(token.acts_for)
    if token.grant_id is not None:
        return of_grant(token.grant_id)
    return f"token:{token.pk}"


def of_manager(token: ApiToken) -> str:
    """Who manages a token's endpoints through the API: the token, or every token of its OAuth grant (one
    assistant's; another assistant of the same traveller sees none of them)."""
    return of_grant(token.grant_id) if token.grant_id is not None else f"token:{token.pk}"


def of_grant(grant_id: int) -> str:
    return f"grant:{grant_id}"


def of_traveller(email: str) -> str:
    return f"traveller:{email.strip().lower()}"


def of_booking(*, email: str, api_token: ApiToken | None) -> list[str]:
    """The keys of every endpoint owner that opens a booking with this e-mail address, booked by this
    token (None: the booking page, staff, a phone booking)."""
    keys = [of_traveller(email)] if email.strip() else []
    if api_token is not None:
        keys.append(f"token:{api_token.pk}")
        if api_token.grant_id is not None:
            keys.append(of_grant(api_token.grant_id))
    return keys
