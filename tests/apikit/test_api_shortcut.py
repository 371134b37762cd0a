"""API paths skip the page middlewares (apikit/shortcut.py), and JSON answers carry no
Content-Security-Policy (sitekit/pages.py: it governs documents)."""

import pytest
from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver

from apikit.problems import is_api_path

pytestmark = pytest.mark.django_db

PRICE = "/api/v1/price?vehicleClass=first&distanceKm=20"


@pytest.mark.parametrize("path", ["/api/v1", PRICE, "/api/nowhere"])
def test_api_requests_skip_the_page_middlewares(client, path):
    client.cookies["sessionid"] = "a-session-cookie"
    client.cookies[settings.CSRF_COOKIE_NAME] = "a" * 32
    response = client.get(path, HTTP_ACCEPT_LANGUAGE="de")
    request = response.wsgi_request
    assert (
        not hasattr(request, "session")
        and not hasattr(request, "auser")
        and not hasattr(request, "_messages")
    )
    assert "CSRF_COOKIE" not in request.META
    assert getattr(request, "user", None) is None  # DRF sets None where no token is sent; no signed-in user
    # Still counted and answered in the API's own language, whatever the browser prefers.
    assert request.LANGUAGE_CODE == settings.LANGUAGE_CODE and "Content-Language" not in response
    assert "RateLimit" in response
    assert response.cookies == {}  # no session or CSRF cookie set or renewed


def test_pages_keep_them(admin_client):
    response = admin_client.get("/admin/")
    assert response.status_code == 200
    assert response.wsgi_request.user.is_staff and hasattr(response.wsgi_request, "auser")
    assert hasattr(response.wsgi_request, "_messages") and hasattr(response.wsgi_request, "session")
    assert response["X-Frame-Options"] == "DENY"


def test_a_post_to_the_api_with_a_cookie_and_no_csrf_token_is_the_api_s_answer_not_a_csrf_refusal(client):
    client.cookies["sessionid"] = "a-session-cookie"
    response = client.post("/api/v1/checkout", data="{}", content_type="application/json")
    assert response.status_code in (400, 401), response.content  # the API's own refusal
    assert response["Content-Type"] == "application/problem+json"


def api_routes(resolver: URLResolver, prefix: str = "/") -> list[tuple[str, object]]:
    routes = []
    for pattern in resolver.url_patterns:
        path = prefix + str(pattern.pattern).lstrip("^").rstrip("$")
        if isinstance(pattern, URLResolver):
            routes += api_routes(pattern, path)
        elif isinstance(pattern, URLPattern) and is_api_path(path.split("<")[0].rstrip("/") or "/"):
            routes.append((path, pattern.callback))
    return routes


def test_every_api_view_is_exempt_from_csrf_so_skipping_its_middleware_changes_nothing():
    routes = api_routes(get_resolver())
    assert len(routes) > 10, routes
    assert [path for path, view in routes if not getattr(view, "csrf_exempt", False)] == []


def test_the_content_security_policy_goes_on_documents_not_on_json(client):
    page = client.get("/en/")
    assert (
        page["Content-Type"].startswith("text/html")
        and "script-src 'self'" in page["Content-Security-Policy"]
    )
    for path in [PRICE, "/openapi.json", "/healthz"]:
        answer = client.get(path)
        assert answer.status_code == 200 and "Content-Security-Policy" not in answer, path


@pytest.mark.parametrize("path", [PRICE, "/api/nowhere", "/api/v1/nowhere", "/api/mcp"])
def test_api_answers_keep_the_headers_the_skipped_middlewares_gave_every_response(client, path):
    """CommonMiddleware's Content-Length (without it gunicorn sends the body chunked, and a HEAD answer
    names no length at all) and XFrameOptionsMiddleware's header, as before the shortcut."""
    answer = client.get(path)
    assert answer["Content-Length"] == str(len(answer.content)) and answer.content
    assert answer["X-Frame-Options"] == "DENY"
    head = client.head(path)
    assert head.status_code == answer.status_code and head.content == b""
    assert head["Content-Length"] == answer["Content-Length"] and head["X-Frame-Options"] == "DENY"


def test_swagger_ui_under_api_still_refuses_to_be_framed_in_every_browser(client):
    page = client.get("/api/docs")
    assert page["Content-Type"].startswith("text/html") and page["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"]


def test_an_api_answer_after_a_german_page_in_the_same_thread_is_in_english(client):
    assert client.get("/de/").wsgi_request.LANGUAGE_CODE == "de"
    refused = client.get("/api/v1/price?vehicleClass=nonsense&distanceKm=20")
    assert refused.status_code == 400
    assert refused.json()["errors"] == {"vehicleClass": ['"nonsense" is not a valid choice.']}
    assert "Content-Language" not in refused
