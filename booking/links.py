"""Links to a booking's pages that a guessed reference cannot open."""

from django.conf import settings
from django.core import signing

CANCEL_SALT = "booking.cancel-page"


def cancel_url(reference: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}/booking/cancel?booking={signing.dumps(reference, salt=CANCEL_SALT)}"


def reference_from_cancel_token(token: str) -> str | None:
    try:
        return signing.loads(token, salt=CANCEL_SALT)
    except signing.BadSignature:
        return None
