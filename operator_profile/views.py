"""The brand's stylesheet and logo, at versioned URLs that browsers may keep for a year; the favicon; the
legal pages."""

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from operator_profile import legal, services
from sitekit.methods import safe
from sitekit.seo import page_links

YEAR = 365 * 24 * 3600
DESCRIPTIONS: dict[str, Promise] = {  # by the URL's kind: Kind's members are its texts
    legal.Kind.IMPRINT: _("Imprint: the company behind this chauffeur service, its register and authority."),
    legal.Kind.TERMS: _("Terms and conditions for booking a chauffeur: contract, price and cancellation."),
    legal.Kind.PRIVACY: _("Privacy notice: which data a booking needs, why, who receives it, your rights."),
    legal.Kind.ACCESSIBILITY: _("Accessibility statement: how usable this site is, its limits, feedback."),
}


def _cached(response: HttpResponse, request: HttpRequest, version: str) -> HttpResponse:
    fresh = request.GET.get("v") == version
    response["Cache-Control"] = f"public, max-age={YEAR}, immutable" if fresh else "public, max-age=300"
    return response


@safe
def brand_stylesheet(request: HttpRequest) -> HttpResponse:
    branding = services.operator_branding()
    return _cached(HttpResponse(branding.stylesheet(), content_type="text/css"), request, branding.version)


@safe
def logo(request: HttpRequest) -> HttpResponse:
    found = services.logo()
    if found is None:
        raise Http404("No logo.")
    return _cached(_image(*found), request, services.operator_branding().version)


@safe
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask every site for /favicon.ico, on JSON answers and redirect targets too: the logo staff
    uploaded, else an empty answer rather than a 404 in every visitor's console. Kept for a day (max-age):
    a logo changed in the admin shows within that."""
    found = services.logo()
    response = HttpResponse(status=204) if found is None else _image(*found)
    response["Cache-Control"] = "public, max-age=86400"
    return response


def _image(content: bytes, media_type: str) -> HttpResponse:
    """The uploaded logo, sandboxed: an image opened on its own runs nothing."""
    response = HttpResponse(content, content_type=media_type)
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return response


@safe
def legal_page(request: HttpRequest, kind: str) -> HttpResponse:
    """A legal text (imprint, terms, privacy notice, accessibility statement) in the language of the URL
    (/de/terms, /en/terms); `?version=N` shows an earlier published version (the terms a booking accepted)."""
    language = translation.get_language()
    asked = request.GET.get("version", "")
    if asked and not (asked.isdigit() and len(asked) < 10):  # a number the database can hold, or none
        raise Http404("No such version.")
    shown = legal.page(kind, language, int(asked) if asked else None)
    if shown is None:
        raise Http404("No such version.")
    context = {
        "legal": shown,
        "seo": page_links(language, kind),
        "language_links": [(code, name, f"/{code}/{kind}") for code, name in settings.LANGUAGES],
        "description": DESCRIPTIONS[kind],
    }
    return render(request, "legal.html", context)
