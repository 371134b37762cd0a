"""API paths (/api and below) go from here straight to their view. The middlewares listed after this one
serve pages: sessions, the page language, trailing-slash redirects, CSRF, the signed-in user, messages,
frame options and django-axes' lockouts. Of these, only the Host check, Content-Length and X-Frame-Options
show in an API answer, and they are kept below; the rest serve cookies, and an API answer is called with
a bearer token or a page-session header, never a cookie, by views all exempt from CSRF
(tests/apikit/test_api_shortcut.py). Together they made about an eighth of a warm API request's work
(docs/benchmarks.md). They stay listed in MIDDLEWARE, where pages need them and Django's checks look for
them by name."""

from collections.abc import Callable

from django.conf import settings
from django.core.handlers.base import BaseHandler
from django.core.handlers.exception import convert_exception_to_response
from django.http import HttpRequest, HttpResponseBase
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.common import CommonMiddleware
from django.utils import translation

from apikit.problems import is_api_path


class ApiShortcutMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response
        self.view = _ViewsOnly().view
        # The two skipped middlewares whose work shows in every API answer: the Host check and
        # Content-Length (a HEAD answer keeps GET's; without it gunicorn chunks the body), and
        # X-Frame-Options (what scanners and older browsers look for; the CSP covers HTML only).
        self.common = CommonMiddleware(get_response)
        self.frame_options = XFrameOptionsMiddleware(get_response)

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not is_api_path(request.path_info):
            return self.get_response(request)
        # What the page-language middleware does on API paths: they answer in the default language.
        translation.activate(settings.LANGUAGE_CODE)
        request.LANGUAGE_CODE = settings.LANGUAGE_CODE
        response = self.common.process_request(request) or self.view(request)
        return self.common.process_response(request, self.frame_options.process_response(request, response))


class _ViewsOnly(BaseHandler):
    """Django's own resolve-call-render step (`_get_response`, errors answered by `handler500` and our
    problem handlers as in the full chain), with no middleware around it."""

    def __init__(self):
        super().__init__()
        self._view_middleware, self._template_response_middleware, self._exception_middleware = [], [], []
        self.view = convert_exception_to_response(self._get_response)
