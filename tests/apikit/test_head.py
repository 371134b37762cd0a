"""HEAD is answered wherever GET is (RFC 9110 §9.3.2): an uptime monitor or a link checker asks HEAD / and
must not see 405. Every URL pattern without parameters is walked for an anonymous visitor (the booking's own
links: tests/booking/test_head_links.py)."""

import re

import pytest
from django.conf import settings
from django.core.handlers.base import BaseHandler
from django.test import RequestFactory
from django.urls import URLResolver, get_resolver
from django.urls.resolvers import LocalePrefixPattern, RegexPattern, RoutePattern

pytestmark = pytest.mark.django_db

# What a newcomer or a monitor opens first: each must answer GET (and so HEAD) 200 without signing in.
MUST_ANSWER = {
    "/",
    "/de/",
    "/en/",
    "/en/terms",
    "/de/imprint",
    "/en/privacy",
    "/developers",
    "/embed/form",
    "/company/brand.css",
    "/healthz",
    "/openapi.json",
    "/api/docs",
    "/api/v1",
    "/api/mcp",
    "/admin/login/",
    "/api/v1/rating",
    "/api/v1/price",
    "/api/v1/availability",
    "/api/v1/distance",
    "/api/v1/places",
    "/api/calculate-distance",
    "/api/places-autocomplete",
    "/api/google-rating",
}
# The public API's GETs answer 200 with their required parameters (the offline places provider).
QUERIES = {
    "/api/v1/price": {"vehicleClass": "executive", "distanceKm": "21.8"},
    "/api/v1/availability": {"pickupDatetime": "2030-06-03T10:00:00+02:00"},
    "/api/v1/distance": {"from": "Stephansplatz 1, Wien", "to": "Flughafen Wien"},
    "/api/v1/places": {"input": "Sacher"},
    "/api/calculate-distance": {"from": "Stephansplatz 1, Wien", "to": "Flughafen Wien"},
    "/api/places-autocomplete": {"input": "Sacher"},
}


def parameter_free_paths(patterns=None, prefix: str = "/") -> list[str]:
    """Every path of the URLconf that needs no parameter (i18n ones once per language)."""
    paths = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        pattern = entry.pattern
        if isinstance(pattern, LocalePrefixPattern):
            parts = [f"{code}/" for code, _ in settings.LANGUAGES]
        elif isinstance(pattern, RoutePattern) and not pattern.converters:
            parts = [str(pattern)]
        elif isinstance(pattern, RegexPattern) and re.fullmatch(r"\^?[\w/.-]*\$?", pattern.regex.pattern):
            parts = [pattern.regex.pattern.strip("^$")]
        else:
            continue  # takes a parameter
        for part in parts:
            if isinstance(entry, URLResolver):
                paths += parameter_free_paths(entry.url_patterns, prefix + part)
            else:
                paths.append(prefix + part)
    return sorted(set(paths))


def assert_head_like_get(client, path: str, query: dict | None = None) -> int:
    got, head = client.get(path, query), client.head(path, query)
    assert (head.status_code, head.content) == (got.status_code, b""), path
    if got.status_code == 200:
        assert head["Content-Type"] == got["Content-Type"], path
    return got.status_code


def test_every_path_answers_head_as_it_answers_get(client):
    paths = parameter_free_paths()
    assert set(paths) >= MUST_ANSWER
    answered = {path for path in paths if assert_head_like_get(client, path, QUERIES.get(path)) == 200}
    assert answered >= MUST_ANSWER


@pytest.mark.parametrize("path", ["/en/", "/healthz", "/api/v1", "/static/booking/booking.js"])
def test_the_body_is_dropped_before_the_server_sees_it(path):
    """Django's test client drops a HEAD body itself; the project's middleware stack must already have, or
    gunicorn logs a warning for every HEAD. The length stays GET's, as RFC 9110 allows."""
    stack = BaseHandler()
    stack.load_middleware()
    got, head = (stack.get_response(getattr(RequestFactory(), method)(path)) for method in ("get", "head"))
    body = b"".join(got.streaming_content) if got.streaming else got.content
    assert (got.status_code, head.status_code) == (200, 200) and body
    assert b"".join(head) == b""
    assert head.get("Content-Length", str(len(body))) == str(len(body))
