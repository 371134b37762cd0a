"""Staff sign-in is throttled per client address (django-axes), so passwords cannot be guessed at speed."""

import pytest
from django.contrib.auth.models import User

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/?next=/admin/"


@pytest.fixture
def staff():
    return User.objects.create_superuser("dispatch", "dispatch@chauffeur.test", "correct horse battery")


def sign_in(client, password: str, address: str = "198.51.100.7"):
    return client.post(LOGIN, {"username": "dispatch", "password": password}, REMOTE_ADDR=address)


def test_ten_wrong_passwords_pause_sign_in_from_that_address(client, staff, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert sign_in(client, "guess").status_code == 200  # the form again, with its error
    locked = sign_in(client, "guess")
    assert locked.status_code == 429 and "Too many sign-in attempts" in locked.content.decode()
    # Paused even with the right password now, so a guesser learns nothing; no session was opened.
    assert sign_in(client, "correct horse battery").status_code == 429
    assert "_auth_user_id" not in client.session
    # Another address is not affected.
    assert sign_in(client, "correct horse battery", address="203.0.113.9").status_code == 302


def test_a_successful_sign_in_resets_the_count(client, staff, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in(client, "guess")
    assert sign_in(client, "correct horse battery").status_code == 302
    client.logout()
    assert sign_in(client, "guess").status_code == 200  # counting starts again
