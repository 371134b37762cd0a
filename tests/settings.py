"""The project's settings for the test suite: only a throwaway secret key is added."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-secret-key-not-for-any-deployment-of-this-service")

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only

# Static files come straight from the apps (no collectstatic before a test run).
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405

if REDIS_URL:  # noqa: F405
    # A busy test machine (parallel workers at the lowest priority) may take longer than production's 50 ms
    # to answer; the tests of a slow or absent Redis set their own timeouts.
    CACHES["default"]["OPTIONS"] = {  # noqa: F405
        **CACHES["default"]["OPTIONS"],  # noqa: F405
        "SOCKET_CONNECT_TIMEOUT": 2,
        "SOCKET_TIMEOUT": 2,
    }
    # Parallel workers (pytest-xdist) share the suite's Redis database: each keeps to a key prefix of its own,
    # and empties only that around each test (tests/conftest.py).
    if os.environ.get("PYTEST_XDIST_WORKER"):
        CACHES["default"]["KEY_PREFIX"] = f"chauffeur-{os.environ['PYTEST_XDIST_WORKER']}"  # noqa: F405
