"""The operator's branding as pages and e-mails use it: read once, kept in the shared cache until staff
save the profile (`profile_changed`)."""

import hashlib
import logging
from dataclasses import dataclass

from django.core.cache import cache
from django.db import DatabaseError

from operator_profile.colours import text_colour_on
from operator_profile.models import PROFILE_ID, OperatorProfile

logger = logging.getLogger(__name__)

CACHE_KEY = "company:branding"
CACHE_SECONDS = 3600
DEFAULT_NAME = "Vienna Chauffeur"  # as seeded (migrations/0002)
LOGO_TYPES = {  # what a logo file starts with → its media type
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"GIF8": "image/gif",
}
MAX_LOGO_BYTES = 256 * 1024


@dataclass(frozen=True)
class Branding:
    name: str
    phone: str
    email: str
    website: str
    brand_colour: str
    header_colour: str
    has_logo: bool
    version: str  # changes whenever the profile does: the cache-busting part of its URLs

    @property
    def on_brand(self) -> str:
        return text_colour_on(self.brand_colour)

    @property
    def on_header(self) -> str:
        return text_colour_on(self.header_colour)

    @property
    def phone_href(self) -> str:
        return "tel:" + "".join(ch for ch in self.phone if ch.isdigit() or ch == "+")

    @property
    def stylesheet_path(self) -> str:
        return f"/company/brand.css?v={self.version}"

    @property
    def logo_path(self) -> str:
        return f"/company/logo?v={self.version}" if self.has_logo else ""

    def stylesheet(self) -> str:
        """The brand's colours as CSS custom properties (a stylesheet: the pages allow no inline style)."""
        return (
            f":root,:host{{--cb-brand:{self.brand_colour};--cb-on-brand:{self.on_brand};"
            f"--cb-header:{self.header_colour};--cb-on-header:{self.on_header}}}\n"
        )


def operator_branding() -> Branding:
    try:
        cached = cache.get(CACHE_KEY)
    except Exception:  # the cache's own errors differ by backend; the database still knows
        logger.warning("Cache unavailable; reading the operator profile from the database", exc_info=True)
        cached = None
    if isinstance(cached, Branding):
        return cached
    try:
        profile = OperatorProfile.objects.filter(id=PROFILE_ID).defer("logo").first()
    except DatabaseError:  # pages still render, unbranded (and uncached), while the database is away
        logger.warning("Operator profile unavailable: the database does not answer", exc_info=True)
        return _branding(OperatorProfile(name=DEFAULT_NAME))
    branding = _branding(profile or OperatorProfile(name=DEFAULT_NAME))
    try:
        cache.set(CACHE_KEY, branding, CACHE_SECONDS)
    except Exception:
        logger.warning("Cache unavailable; the operator profile is not cached", exc_info=True)
    return branding


def profile_changed() -> None:
    """Call after staff saved the profile: every page shows the new branding on its next request."""
    cache.delete(CACHE_KEY)


def logo() -> tuple[bytes, str] | None:
    """The logo's bytes and media type, or None without one."""
    profile = OperatorProfile.objects.filter(id=PROFILE_ID).only("logo", "logo_type").first()
    if profile is None or not profile.logo:
        return None
    return bytes(profile.logo), profile.logo_type


def logo_type(content: bytes) -> str | None:
    """The media type of an uploaded logo (PNG, JPEG or GIF), or None for anything else. SVG is refused:
    it can carry scripts."""
    return next((kind for magic, kind in LOGO_TYPES.items() if content.startswith(magic)), None)


def _branding(profile: OperatorProfile) -> Branding:
    stamp = f"{profile.updated_at}|{profile.brand_colour}|{profile.header_colour}|{profile.logo_type}"
    return Branding(
        name=profile.name,
        phone=profile.phone,
        email=profile.email,
        website=profile.website,
        brand_colour=profile.brand_colour,
        header_colour=profile.header_colour,
        has_logo=bool(profile.logo_type),
        version=hashlib.sha256(stamp.encode()).hexdigest()[:12],
    )
