"""A live server whose page sessions run out quickly (8 calls in 10 s), to watch the booking page meet the
limit, say so and recover by itself."""

from tests.browser.limited_settings import *  # noqa: F403

PAGE_SESSION_RATE_LIMIT = 8
PAGE_RATE_LIMIT_WINDOW_SECONDS = 10
