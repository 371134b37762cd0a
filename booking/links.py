"""Links to a booking's pages that a guessed reference cannot open: the reference travels signed."""

from django.conf import settings
from django.core import signing

CANCEL_SALT = "booking.cancel-page"
MANAGE_SALT = "booking.manage-page"
MANAGE_PATH = "/booking/manage"
ACCOUNT_LINK_SALT = "booking.account-link"
ACCOUNT_LINK_PATH = "/booking/account"


def booking_token(reference: str) -> str:
    return signing.dumps(reference, salt=CANCEL_SALT)


def cancel_url(reference: str) -> str:
    """Where a customer lands who left the checkout page."""
    return f"{settings.PUBLIC_BASE_URL}/booking/cancel?booking={booking_token(reference)}"


def resume_path(reference: str, language: str) -> str:
    """The booking page in `language`, filled with this booking's choices (after a cancelled payment)."""
    return f"/{language}/?booking={booking_token(reference)}"


def reference_from_cancel_token(token: str) -> str | None:
    try:
        return signing.loads(token, salt=CANCEL_SALT)
    except signing.BadSignature:
        return None


def manage_url(reference: str) -> str:
    """The customer's own page of a booking (state, driver, cancel): the link in their e-mails. The same
    booking always has the same link (no timestamp), so every e-mail and answer shows one address."""
    return f"{settings.PUBLIC_BASE_URL}{MANAGE_PATH}?booking={_manage_signer().sign(reference)}"


def reference_from_manage_token(token: str) -> str | None:
    try:
        return _manage_signer().unsign(token)
    except signing.BadSignature:
        return None


def _manage_signer() -> signing.Signer:
    return signing.Signer(salt=MANAGE_SALT)


def account_link_url(booking) -> str:
    """The one-time link that confirms a booking on a company's account (booking/on_account.py), signed
    when its mail is sent. The address is signed in: the link proves only the mailbox it went to, not one
    set on the booking later."""
    data = {"b": booking.pk, "r": booking.reference, "e": mailbox(booking.email)}
    token = signing.TimestampSigner(salt=ACCOUNT_LINK_SALT).sign_object(data)
    return f"{settings.PUBLIC_BASE_URL}{ACCOUNT_LINK_PATH}?token={token}"


def mailbox(email: str) -> str:
    return (email or "").strip().lower()
