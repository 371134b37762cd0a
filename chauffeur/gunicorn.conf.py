"""gunicorn settings for production (`gunicorn -c chauffeur/gunicorn.conf.py chauffeur.wsgi`).
PORT and WEB_CONCURRENCY are gunicorn's own conventions; the command line overrides anything here."""

import multiprocessing
import os

from gunicorn.workers.sync import SyncWorker

bind = [f"0.0.0.0:{os.environ.get('PORT', '8000')}"]
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
timeout = 30  # the slowest request waits on Google or Stripe, each with its own shorter timeout
graceful_timeout = 30
keepalive = 5
accesslog = "-"
errorlog = "-"
# gunicorn's own forwarded_allow_ips stays at its default (127.0.0.1): X-Forwarded-* from anyone else is
# not trusted by gunicorn; Django trusts the proxies that TRUSTED_PROXY_COUNT names.


class WorkerTimeout(Exception):
    """Raised into a request that outlived `timeout` (e.g. a database that stopped answering mid-query)."""


def worker_abort(worker) -> None:
    """gunicorn's own answer to a timed-out request is its HTML error page. In a sync worker the request runs
    in the thread that gets the signal, so an exception raised here reaches Django's and DRF's handlers
    instead: the caller gets its surface's error format. The worker still exits after that answer."""
    if isinstance(worker, SyncWorker):
        raise WorkerTimeout(f"request still running after the {worker.cfg.timeout} s worker timeout")


def post_worker_init(worker) -> None:
    """Load in a fresh worker what its first request would load (the URL table with every view, the cache
    client), so that first answer, a health check's included, is as quick as any later one."""
    from django.core.cache import caches
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports every view module
    getattr(caches["default"], "client", None)  # django-redis builds its client and pool lazily
