"""The production settings with the request-deadline tests' URLs (deadline_urls.py)."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "tests.config.deadline_urls"
