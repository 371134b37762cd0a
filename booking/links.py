"""Links to a booking's pages that a guessed reference cannot open: the reference travels signed."""

from django.conf import settings
from django.core import signing

CANCEL_SALT = "booking.cancel-page"
MANAGE_SALT = "booking.manage-page"
MANAGE_PATH = "/booking/manage"


def cancel_url(reference: str) -> str:
    """Where a customer lands who left the checkout page."""
    return _signed_url("/booking/cancel", reference, CANCEL_SALT)


def reference_from_cancel_token(token: str) -> str | None:
    return _reference(token, CANCEL_SALT)


def manage_url(reference: str) -> str:
    """The customer's own page of a booking (state, driver, cancel): the link in their e-mails."""
    return _signed_url(MANAGE_PATH, reference, MANAGE_SALT)


def reference_from_manage_token(token: str) -> str | None:
    return _reference(token, MANAGE_SALT)


def _signed_url(path: str, reference: str, salt: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}{path}?booking={signing.dumps(reference, salt=salt)}"


def _reference(token: str, salt: str) -> str | None:
    try:
        return signing.loads(token, salt=salt)
    except signing.BadSignature:
        return None
