import pytest

from tests.processes import manage

pytestmark = pytest.mark.django_db


def test_healthy_when_database_and_cache_answer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_unavailable_when_the_cache_does_not_answer(client, cache_down):
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "ok", "cache": "unavailable"}


def test_unavailable_when_the_database_does_not_answer():
    # In a fresh process: the suite's own test database cannot be taken away without losing it.
    probe = "from django.test import Client; r = Client().get('/healthz'); print(r.status_code, r.content.decode())"
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        probe,
        DJANGO_DEBUG="true",
        DJANGO_ALLOWED_HOSTS="testserver",
        DATABASE_URL="sqlite:////nonexistent-directory/db.sqlite3",
    )
    assert result.stdout.strip().splitlines()[-1] == (
        '503 {"status": "unavailable", "database": "unavailable", "cache": "ok"}'
    ), result.stderr
