"""The project's settings and limits for the live server of the rate-limit tests, with a shared cache that
waits up to a second (production: 50 ms) before it lets a request pass uncounted. Three browsers and the
server share two cores here; a Redis answer late under that load would let a request through uncounted,
without the RateLimit headers the tests read."""

from config.settings import *  # noqa: F403

if "OPTIONS" in CACHES["default"]:  # noqa: F405 (Redis: the PostgreSQL/Redis run)
    CACHES["default"]["OPTIONS"] = {  # noqa: F405
        **CACHES["default"]["OPTIONS"],  # noqa: F405
        "SOCKET_CONNECT_TIMEOUT": 1,
        "SOCKET_TIMEOUT": 1,
    }
