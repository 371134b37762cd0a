"""The live server of the browser tests: the project's settings, with room for many quotes from one address
(every browser test comes from 127.0.0.1; the rate limit has tests of its own)."""

from config.settings import *  # noqa: F403

API_RATE_LIMIT_REQUESTS = 10_000
