"""Peer "idiomatic DRF" of `make bench`: the app a Django team writes without thinking about speed — the
bare peer's startproject base plus DRF: an APIView per operation with input and output serializers, DRF's
database TokenAuthentication and its UserRateThrottle on Redis, doing the project's domain work
(benchmarks/peers/work.py)."""

import os

from benchmarks.peers.bare_django.settings import *  # noqa: F403  (the same startproject base)
from benchmarks.peers.bare_django.settings import INSTALLED_APPS

ROOT_URLCONF = "benchmarks.peers.drf_app.views"
INSTALLED_APPS = [*INSTALLED_APPS, "rest_framework", "rest_framework.authtoken"]
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": os.environ["REDIS_URL"],
        "KEY_PREFIX": "drf-peer",
    }
}
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.UserRateThrottle"],
    # Raised, like the project's token limit, so that no reply is a 429. Per second, because DRF keeps one
    # timestamp per request of the window in a pickled list: a minute's would grow with the load.
    "DEFAULT_THROTTLE_RATES": {"user": "1000000/second"},
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "COERCE_DECIMAL_TO_STRING": False,
}
