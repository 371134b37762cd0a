"""The language of a request. Pages and the admin follow the visitor (URL prefix, `django_language`
cookie, then Accept-Language); the APIs and the health check keep LANGUAGE_CODE, whatever a browser asks,
so their messages stay those their clients were written against (settings.UNTRANSLATED_PATHS)."""

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.middleware.locale import LocaleMiddleware
from django.utils import translation


def untranslated(path: str) -> bool:
    return path.startswith(tuple(settings.UNTRANSLATED_PATHS))


class PageLocaleMiddleware(LocaleMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        if untranslated(request.path_info):
            translation.activate(settings.LANGUAGE_CODE)
            request.LANGUAGE_CODE = settings.LANGUAGE_CODE
            return
        super().process_request(request)

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if untranslated(request.path_info):
            return response
        return super().process_response(request, response)


def supported(language: str | None) -> str | None:
    """`language` if the site speaks it ("de", "en"), else None."""
    return language if language in dict(settings.LANGUAGES) else None


def language_links(request: HttpRequest) -> list[tuple[str, str, str]]:
    """(code, name, URL) of this page in each language: the same path and query, `lang` set."""
    query = request.GET.copy()
    links = []
    for code, name in settings.LANGUAGES:
        query["lang"] = code
        links.append((code, name, f"{request.path}?{query.urlencode()}"))
    return links
