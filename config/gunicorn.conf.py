"""gunicorn settings for production (`gunicorn -c config/gunicorn.conf.py config.wsgi`).
PORT, WEB_CONCURRENCY and GUNICORN_CMD_ARGS are gunicorn's own conventions; the command line overrides
anything here (`--worker-class sync --threads 1` brings back the sync worker, `--threads 4` more threads)."""

import multiprocessing
import os

from gunicorn.workers.sync import SyncWorker

from config.deadline import WorkerTimeout

bind = [f"0.0.0.0:{os.environ.get('PORT', '8000')}"]
# Threaded workers keep connections alive; `timeout` is each request's own deadline there
# (docs/operations/scaling.md, "Worker model and the request deadline").
worker_class = "config.deadline.DeadlineThreadWorker"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() + 1))
threads = 2
timeout = 30  # the slowest request waits on Google or Stripe, each with its own shorter timeout
graceful_timeout = 30
keepalive = 5  # seconds an idle connection stays open: a proxy in front reuses its upstream connections
# No control socket (gunicorn ≥ 25, for `gunicornc`): by default it goes under the home folder, which a pod's
# read-only root cannot hold (an [ERROR] at every start). Signals do the same work: HUP reloads, TTIN/TTOU
# add and remove a worker.
control_socket_disable = True
# The longest request line gunicorn reads: above the service's own limit (apikit/request_limits.py, 4094
# bytes), so a long address is answered 414 by the app, in its surface's format.
limit_request_line = 8190
accesslog = "-"
errorlog = "-"
# gunicorn's own forwarded_allow_ips stays at its default (127.0.0.1): X-Forwarded-* from anyone else is
# not trusted by gunicorn; Django trusts the proxies that TRUSTED_PROXY_COUNT names.


def worker_abort(worker) -> None:
    """gunicorn's own answer to a timed-out request is its HTML error page. In a sync worker the request runs
    in the thread that gets the signal, so an exception raised here reaches Django's and DRF's handlers
    instead: the caller gets its surface's error format. The worker still exits after that answer. The
    default threaded worker never gets here for a hung request: its own deadline answers first."""
    if isinstance(worker, SyncWorker):
        raise WorkerTimeout(f"request still running after the {worker.cfg.timeout} s worker timeout")


def post_worker_init(worker) -> None:
    """Load in a fresh worker what its first request would load (the URL table with every view, the cache
    client), so that first answer, a health check's included, is as quick as any later one."""
    from django.core.cache import caches
    from django.urls import get_resolver

    from apikit.catalog import v1_operations

    get_resolver().url_patterns  # noqa: B018 - imports every view module
    getattr(caches["default"], "client", None)  # django-redis builds its client and pool lazily
    # The OpenAPI document (kept for the process: apikit/document.py) and the catalog read from it.
    v1_operations()
