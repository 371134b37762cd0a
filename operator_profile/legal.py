"""The legal texts (imprint, terms, privacy notice, accessibility statement) as pages, e-mails and the
checkout use them: the newest published version of each, a draft published as the next version, the
operator profile's details filled into the `{placeholders}`, and the texts' plain markup turned into HTML."""

import re
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape, urlize
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from operator_profile.models import COUNTRIES, PROFILE_ID, REGISTER_DETAILS, LegalText, OperatorProfile

Kind = LegalText.Kind
# The placeholders a text may use, each filled from the operator profile; `address` is the whole address.
PLACEHOLDERS = ("name", "legal_name", "address", "phone", "email", "website", *REGISTER_DETAILS)
PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")


def current(kind: str) -> LegalText | None:
    """The newest published version of a text, or None before any was published."""
    return LegalText.objects.filter(kind=kind, published_at__isnull=False).order_by("-version").first()


def published(kind: str, version: int) -> LegalText | None:
    return LegalText.objects.filter(kind=kind, version=version, published_at__isnull=False).first()


def publish(pk: int) -> LegalText:
    """Freeze a draft as the next version of its kind; it is what the pages show from now on. Publishing a
    published version again changes nothing."""
    with transaction.atomic():
        text = LegalText.objects.select_for_update().get(pk=pk)
        if text.published:
            return text
        # Lock the kind's versions too: two drafts published at once must not draw the same number.
        newest = (
            LegalText.objects.select_for_update()
            .filter(kind=text.kind, version__isnull=False)
            .aggregate(Max("version"))["version__max"]
        )
        text.version, text.published_at = (newest or 0) + 1, timezone.now()
        text.save(update_fields=["version", "published_at"])
    return text


@dataclass(frozen=True)
class LegalPage:
    kind: str
    title: str
    version: int | None
    published_at: object
    html: SafeString


def page(kind: str, language: str, version: int | None = None) -> LegalPage | None:
    """A text as its page shows it in `language`: the current version, or the published `version` asked
    for (a booking's accepted terms); None when there is no such version."""
    text = published(kind, version) if version else current(kind)
    if text is None:
        return None
    with translation.override(language):
        body = text.body_de if language == "de" else text.body_en
        return LegalPage(
            kind=kind,
            title=str(Kind(kind).label),
            version=text.version,
            published_at=text.published_at,
            html=render(fill(body, OperatorProfile.objects.filter(id=PROFILE_ID).first())),
        )


def fill(text: str, profile: OperatorProfile | None) -> str:
    """The text with the profile's details for its placeholders; a detail not entered yet is marked."""
    missing = "[" + _("to be completed in the operator profile") + "]"
    values = details(profile) if profile else {}
    return PLACEHOLDER.sub(lambda match: values.get(match[1]) or missing, text)


def details(profile: OperatorProfile) -> dict[str, str]:
    country = str(dict(COUNTRIES).get(profile.country, profile.country))
    place = " ".join(part for part in (profile.postcode, profile.city) if part)
    address = ", ".join(part for part in (profile.street_address, place) if part)
    return {
        **{name: str(getattr(profile, name, "") or "") for name in PLACEHOLDERS},
        "legal_name": profile.legal_name or "",
        "address": f"{address}, {country}" if profile.street_address else "",
    }


def render(text: str) -> SafeString:
    """The texts' plain markup, escaped: blank lines part paragraphs, `## ` starts a heading, `- ` a list
    item; web addresses and e-mail addresses become links."""
    blocks = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        if lines[0].startswith("## "):
            blocks.append(f"<h2>{escape(lines.pop(0)[3:])}</h2>")
            if not lines:
                continue
        if all(line.startswith("- ") for line in lines):
            items = "".join(f"<li>{_inline(line[2:])}</li>" for line in lines)
            blocks.append(f"<ul>{items}</ul>")
        else:
            blocks.append("<p>" + "<br>".join(_inline(line) for line in lines) + "</p>")
    return mark_safe("\n".join(blocks))  # noqa: S308 - every piece was escaped above


def _inline(line: str) -> str:
    return urlize(line, nofollow=True, autoescape=True)


def links(language: str) -> list[tuple[str, str]]:
    """(title, absolute URL) of the imprint, the terms and the privacy notice: for e-mails' footers."""
    with translation.override(language):
        return [
            (str(kind.label), settings.PUBLIC_BASE_URL + reverse(kind.value))
            for kind in (Kind.IMPRINT, Kind.TERMS, Kind.PRIVACY)
        ]
