from django.conf import settings
from django.core import checks


@checks.register(checks.Tags.caches, deploy=True)
def shared_cache_configured(app_configs, **kwargs):
    """Rate-limit counters and the tariff version live in the cache: without Redis, each worker is alone."""
    if settings.REDIS_URL:
        return []
    return [
        checks.Warning(
            "REDIS_URL is not set: rate limits and tariff updates are not shared between server processes.",
            hint="Set REDIS_URL (e.g. redis://redis:6379/0) for any deployment with more than one process.",
            id="chauffeur.W001",
        )
    ]
