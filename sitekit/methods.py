"""Which methods each page and probe takes, known before the CSRF check runs: a POST to a page that only
shows something is answered 405 with the Allow header, not with the CSRF failure page, and TRACE reaches
no view. API paths skip this (apikit/shortcut.py): DRF and the MCP endpoint answer 405 in their formats.

Views declare their methods with `allow(...)` (or `safe`, GET and HEAD); class-based views declare theirs
by their handler methods. Django's own views (the admin, set_language) declare nothing and take GET, HEAD
and POST."""

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from apikit.request_limits import short_page

UNDECLARED = ("GET", "HEAD", "POST")
ALLOWED_ATTRIBUTE = "allowed_methods"
REFUSAL_ATTRIBUTE = "method_refusal"

Refusal = Callable[[HttpRequest, tuple[str, ...]], HttpResponse]
View = Callable[..., Any]


def allow(*methods: str, refusal: Refusal | None = None) -> Callable[[View], View]:
    """The view takes these methods; any other is answered 405 with Allow, before CSRF is checked (by
    MethodsMiddleware) and, without the middleware, by Django's own check. `refusal` writes that 405 in
    the view's own format (json_refusal, OAuth's errors); a page's is a short page."""
    names = tuple(dict.fromkeys(method.upper() for method in methods))

    def declare(view: View) -> View:
        checked = require_http_methods(list(names))(view)
        setattr(checked, ALLOWED_ATTRIBUTE, names)
        setattr(checked, REFUSAL_ATTRIBUTE, refusal or page_refusal)
        return checked

    return declare


safe = allow("GET", "HEAD")


def allowed_methods(view: View) -> tuple[str, ...]:
    declared = getattr(view, ALLOWED_ATTRIBUTE, None)
    if declared:
        return declared
    view_class = getattr(view, "view_class", None) or getattr(view, "cls", None)
    if view_class is None:
        return UNDECLARED
    names = [name.upper() for name in view_class.http_method_names if hasattr(view_class, name)]
    if "GET" in names and "HEAD" not in names:  # Django's View.setup serves HEAD with get()
        names.append("HEAD")
    return tuple(names)


def _sentence(request: HttpRequest, allowed: tuple[str, ...]) -> str:
    return _("This address does not take %(method)s; it takes %(allowed)s.") % {
        "method": request.method,
        "allowed": ", ".join(allowed),
    }


def page_refusal(request: HttpRequest, allowed: tuple[str, ...]) -> HttpResponse:
    response = short_page(405, _sentence(request, allowed))
    response["Allow"] = ", ".join(allowed)
    return response


def json_refusal(request: HttpRequest, allowed: tuple[str, ...]) -> HttpResponse:
    body = {"error": "method_not_allowed", "detail": _sentence(request, allowed)}
    response = JsonResponse(body, status=405)
    response["Allow"] = ", ".join(allowed)
    return response


class MethodsMiddleware:
    """Before CsrfViewMiddleware in MIDDLEWARE: a method the view does not take is refused first."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: View, args: Any, kwargs: Any
    ) -> HttpResponseBase | None:
        allowed = allowed_methods(view)
        if request.method in allowed:
            return None
        return getattr(view, REFUSAL_ATTRIBUTE, page_refusal)(request, allowed)
