"""The brand's stylesheet and logo, at versioned URLs that browsers may keep for a year."""

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from company import services

YEAR = 365 * 24 * 3600


def _cached(response: HttpResponse, request: HttpRequest, version: str) -> HttpResponse:
    fresh = request.GET.get("v") == version
    response["Cache-Control"] = f"public, max-age={YEAR}, immutable" if fresh else "public, max-age=300"
    return response


@require_GET
def brand_stylesheet(request: HttpRequest) -> HttpResponse:
    branding = services.operator_branding()
    return _cached(HttpResponse(branding.stylesheet(), content_type="text/css"), request, branding.version)


@require_GET
def logo(request: HttpRequest) -> HttpResponse:
    found = services.logo()
    if found is None:
        raise Http404("No logo.")
    content, media_type = found
    response = HttpResponse(content, content_type=media_type)
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return _cached(response, request, services.operator_branding().version)
