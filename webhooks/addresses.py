"""Where deliveries may go: an https URL whose host resolves to public addresses only, checked when an
endpoint is added and again before every attempt (its DNS may have changed), and called at the address
checked (sitekit/public_addresses.py: the rules the OAuth client metadata fetch follows). With
WEBHOOKS_PRIVATE_ADDRESSES (development and tests) a local receiver is allowed, over http too."""

from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from sitekit import public_addresses

MAX_URL_LENGTH = 2000


class EndpointRefused(ValueError):
    """The URL may not receive deliveries; `reason` says why in the reader's language."""

    def __init__(self, reason):
        super().__init__(str(reason))
        self.reason = reason


def written_rules(url: str) -> None:
    """The rules the URL's text must follow (no lookup): EndpointRefused."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise EndpointRefused(_("The URL is not a valid URL.")) from None
    if len(url) > MAX_URL_LENGTH or parts.fragment or "#" in url:
        raise EndpointRefused(_("The URL must be at most 2000 characters long and have no fragment."))
    if parts.username is not None or parts.password is not None or not parts.hostname:
        raise EndpointRefused(_("The URL must name a host and carry no user name or password."))
    allowed = ("https", "http") if settings.WEBHOOKS_PRIVATE_ADDRESSES else ("https",)
    if parts.scheme not in allowed:
        raise EndpointRefused(_("The URL must use https."))
    if port == 0:
        raise EndpointRefused(_("The URL is not a valid URL."))


def checked(url: str) -> str | None:
    """The address to call `url` at (None: as its host resolves, where private addresses are allowed);
    EndpointRefused when the URL breaks a rule or its host is not public."""
    written_rules(url)
    if settings.WEBHOOKS_PRIVATE_ADDRESSES:
        return None
    parts = urlsplit(url)
    try:
        return public_addresses.checked_address(parts.hostname or "", parts.port or 443)
    except public_addresses.NotPublic as refusal:
        if refusal.unresolved:
            raise EndpointRefused(_("The URL's host cannot be resolved.")) from None
        raise EndpointRefused(_("The URL's host is not a public address.")) from None
