"""gunicorn settings for production (`gunicorn -c chauffeur/gunicorn.conf.py chauffeur.wsgi`).
PORT and WEB_CONCURRENCY are gunicorn's own conventions; the command line overrides anything here."""

import multiprocessing
import os

bind = [f"0.0.0.0:{os.environ.get('PORT', '8000')}"]
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
timeout = 30  # the slowest request waits on Google or Stripe, each with its own shorter timeout
graceful_timeout = 30
keepalive = 5
accesslog = "-"
errorlog = "-"
# gunicorn's own forwarded_allow_ips stays at its default (127.0.0.1): X-Forwarded-* from anyone else is
# not trusted by gunicorn; Django trusts the proxies that TRUSTED_PROXY_COUNT names.
