"""Middlewares only pages need, skipped on API paths (/api and below), which are called with bearer tokens,
never a signed-in user, and answer JSON: the user (auth) and the messages did nothing there but cost about
5 % of a warm API request (benchmarks/hotpath.py). Settings list these subclasses in place of Django's
own; the admin's checks still recognise them. Sessions and CSRF keep Django's own classes: the deploy
checks know them by name only, and skipping them too would save another 2 % at most. The Content-Security-
Policy goes on HTML responses only."""

from csp.middleware import CSPMiddleware as DjangoCSPMiddleware
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware as DjangoMessageMiddleware
from django.http import HttpRequest, HttpResponse

from chauffeur.api.problems import is_api_path


class PagesOnly:
    """Runs the middleware it is mixed into except on API paths."""

    def __call__(self, request: HttpRequest):
        if is_api_path(request.path_info):
            return self.get_response(request)
        return super().__call__(request)


class AuthenticationMiddleware(PagesOnly, DjangoAuthenticationMiddleware):
    pass


class MessageMiddleware(PagesOnly, DjangoMessageMiddleware):
    pass


class CSPMiddleware(DjangoCSPMiddleware):
    """django-csp's, for documents only: a Content-Security-Policy governs what a page may load, and JSON
    loads nothing; django-csp builds its header for every response otherwise (10 % of a warm API request)."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if not response.get("Content-Type", "").startswith("text/html"):
            return response
        return super().process_response(request, response)
