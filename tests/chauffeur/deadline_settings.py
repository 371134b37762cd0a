"""The production settings with the request-deadline tests' URLs (deadline_urls.py)."""

from chauffeur.settings import *  # noqa: F403

ROOT_URLCONF = "tests.chauffeur.deadline_urls"
