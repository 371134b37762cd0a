"""How many mails requests without a sign-in may cause to one address (docs/operations/messages.md "Mail
that strangers can cause"): at most ANONYMOUS_MAILS_PER_RECIPIENT in any hour, one count per address over
every such mail (the booking page's on-account link, a traveller's sign-in code), kept in the shared cache
so every worker counts together. Nobody floods a mailbox through one door or by taking turns at several.
Every other mail goes out after a payment, to staff, or to a signed-in traveller."""

import hashlib
import logging

from django.conf import settings

from apikit import sliding_window

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 3600


def spend(address: str) -> int | None:
    """Counts one mail to `address`; None when it may go, else the seconds until one more may. The shared
    cache down: not counted (each door's own limits still hold), and a warning is logged."""
    digest = hashlib.sha256(mailbox(address).encode()).hexdigest()[:32]  # no address in the cache's keys
    try:
        count = sliding_window.hit(
            f"mail-to:{digest}", limit=settings.ANONYMOUS_MAILS_PER_RECIPIENT, window=WINDOW_SECONDS
        )
    except Exception:  # the cache backend's own errors differ (redis, breaker …)
        logger.warning("Mails per recipient not counted: the shared cache does not answer")
        return None
    if count.allowed:
        return None
    logger.warning("Mail to a recipient refused: %d anonymous mails in the last hour", count.count)
    return max(count.reset, 1)


def mailbox(address: str) -> str:
    """The mailbox an address reaches, as far as one can tell: `victim+1@x` and `Victim+2@X` land in
    `victim@x` at most providers, so they share one count."""
    local, _, domain = address.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0] or local}@{domain}" if local else address.strip().lower()


def may_mail(address: str) -> bool:
    """Counts one mail to `address`; whether it may go."""
    return spend(address) is None
