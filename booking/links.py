"""Links to a booking's pages that a guessed reference cannot open."""

from django.conf import settings
from django.core import signing

CANCEL_SALT = "booking.cancel-page"


def booking_token(reference: str) -> str:
    return signing.dumps(reference, salt=CANCEL_SALT)


def cancel_url(reference: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}/booking/cancel?booking={booking_token(reference)}"


def resume_path(reference: str, language: str) -> str:
    """The booking page in `language`, filled with this booking's choices (after a cancelled payment)."""
    return f"/{language}/?booking={booking_token(reference)}"


def reference_from_cancel_token(token: str) -> str | None:
    try:
        return signing.loads(token, salt=CANCEL_SALT)
    except signing.BadSignature:
        return None
