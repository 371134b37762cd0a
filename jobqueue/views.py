from datetime import timedelta

from django.db.models import Max
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache

from jobqueue.models import WorkerHeartbeat
from sitekit.methods import allow, json_refusal

WORKER_SEEN_WITHIN = timedelta(seconds=60)


@allow("GET", "HEAD", refusal=json_refusal)
@never_cache
def worker_health(request: HttpRequest) -> JsonResponse:
    """200 when some worker beat within the last minute, else 503; says when one was last seen."""
    last_seen = WorkerHeartbeat.objects.aggregate(last=Max("seen_at"))["last"]
    healthy = last_seen is not None and timezone.now() - last_seen <= WORKER_SEEN_WITHIN
    return JsonResponse(
        {
            "status": "ok" if healthy else "unavailable",
            "lastSeen": last_seen.isoformat() if last_seen else None,
            "secondsAgo": round((timezone.now() - last_seen).total_seconds(), 1) if last_seen else None,
        },
        status=200 if healthy else 503,
    )
