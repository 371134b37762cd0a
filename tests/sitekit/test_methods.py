"""Every page and probe answers a method it does not take with 405 and Allow, before the CSRF check: a
POST to /healthz is not the CSRF failure page, and TRACE reaches no view anywhere."""

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from apikit.problems import is_api_path
from sitekit.methods import ALLOWED_ATTRIBUTE, allowed_methods


def routes(patterns=None, prefix=""):
    """Every URL pattern outside /api with its view, as a path with each parameter filled in."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            path = "/" + re.sub(r"<(?:\w+:)?\w+>", "x", route).lstrip("^").rstrip("$")
            if not is_api_path(path) and "(" not in path and "[" not in path:
                yield path, pattern.callback


@pytest.fixture
def strict():
    return Client(enforce_csrf_checks=True, raise_request_exception=False)


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["post", "put", "delete", "trace"])
def test_the_health_checks_take_get_and_head_only(strict, method):
    for path in ("/healthz", "/healthz/worker"):
        answer = getattr(strict, method)(path)
        assert answer.status_code == 405, (path, answer.content)
        assert answer["Allow"] == "GET, HEAD"
        assert answer.json() == {
            "error": "method_not_allowed",
            "detail": f"This address does not take {method.upper()}; it takes GET, HEAD.",
        }
    assert strict.get("/healthz").status_code == 200


@pytest.mark.django_db
def test_a_post_to_a_page_that_only_shows_is_405_in_the_page_language_not_a_csrf_failure(strict):
    answer = strict.post("/booking/success", HTTP_ACCEPT_LANGUAGE="de")
    assert answer.status_code == 405
    assert answer["Allow"] == "GET, HEAD"
    assert answer["Content-Type"] == "text/html; charset=utf-8"
    assert "Diese Adresse nimmt kein POST an, nur GET, HEAD." in answer.content.decode()


@pytest.mark.django_db
def test_a_post_to_a_form_page_still_needs_its_csrf_token(strict):
    assert strict.post("/booking/manage").status_code == 403


def test_every_view_of_this_project_declares_its_methods():
    """The admin's views follow the admin's own convention (GET, HEAD, POST); every other view says."""
    undeclared = [
        path
        for path, view in routes()
        if not view.__module__.startswith("django.")
        and not path.startswith("/admin/")
        and not getattr(view, ALLOWED_ATTRIBUTE, None)
        and not hasattr(view, "view_class")
        and not hasattr(view, "cls")
    ]
    assert undeclared == []


@pytest.mark.django_db
def test_trace_reaches_no_view_and_unsafe_methods_a_page_does_not_take_are_405(strict):
    for path, _view in routes():
        allowed = allowed_methods(resolve(path).func)
        answer = strict.generic("TRACE", path)
        assert answer.status_code == 405, path
        assert answer["Allow"] == ", ".join(allowed), path
        if "POST" not in allowed:
            assert strict.post(path).status_code == 405, path
