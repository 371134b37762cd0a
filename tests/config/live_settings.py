"""The production settings for the schemathesis run of test_schemathesis_live.py, with a rate limit far
above what a few thousand generated requests need (the limit itself is tested in test_ratelimit*.py)."""

from config.settings import *  # noqa: F403

API_RATE_LIMIT_REQUESTS = 1_000_000
