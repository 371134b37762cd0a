"""The project's settings for the test suite: only a throwaway secret key is added."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-secret-key-not-for-any-deployment-of-this-service")

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only

# Static files come straight from the apps (no collectstatic before a test run).
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
