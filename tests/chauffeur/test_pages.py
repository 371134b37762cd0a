"""Middlewares for pages only (chauffeur/pages.py): API paths skip the signed-in user and messages, and
JSON answers carry no Content-Security-Policy (it governs documents)."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path", ["/api/v1", "/api/v1/price?vehicleClass=first&distanceKm=20", "/api/nowhere"]
)
def test_api_requests_skip_the_page_middlewares(client, path):
    request = client.get(path).wsgi_request
    assert not hasattr(request, "auser")  # set by Django's AuthenticationMiddleware
    assert getattr(request, "user", None) is None  # DRF sets None where no token is sent; no signed-in user
    assert not hasattr(request, "_messages")


def test_pages_keep_them(admin_client):
    response = admin_client.get("/admin/")
    assert response.status_code == 200
    assert response.wsgi_request.user.is_staff and hasattr(response.wsgi_request, "auser")
    assert hasattr(response.wsgi_request, "_messages")


def test_the_content_security_policy_goes_on_documents_not_on_json(client):
    page = client.get("/en/")
    assert (
        page["Content-Type"].startswith("text/html")
        and "script-src 'self'" in page["Content-Security-Policy"]
    )
    for path in ["/api/v1/price?vehicleClass=first&distanceKm=20", "/openapi.json", "/healthz"]:
        answer = client.get(path)
        assert answer.status_code == 200 and "Content-Security-Policy" not in answer, path
