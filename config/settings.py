"""Settings, all read from the environment (docs/decisions.md §2). Local defaults are safe; production secrets
have no default, so a misconfigured deployment stops at start-up instead of running insecurely."""

import os
import sys
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.checks.security import base as django_security

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", False)


def weak_secret_key(key: str) -> bool:
    """Weak as Django's deploy check security.W009 judges it (too short, too few different characters, its
    insecure prefix), or a placeholder pasted from the docs ("…")."""
    return "…" in key or not (
        len(key) >= django_security.SECRET_KEY_MIN_LENGTH
        and len(set(key)) >= django_security.SECRET_KEY_MIN_UNIQUE_CHARACTERS
        and not key.startswith(django_security.SECRET_KEY_INSECURE_PREFIX)
    )


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
# One line, no traceback: these are an operator's mistakes, not bugs.
if not SECRET_KEY:
    if not DEBUG:
        sys.exit("Start-up refused: set DJANGO_SECRET_KEY (required when DJANGO_DEBUG is off).")
    SECRET_KEY = "insecure-local-development-key-never-use-in-production"  # noqa: S105
elif not DEBUG and weak_secret_key(SECRET_KEY):
    sys.exit(
        "Start-up refused: DJANGO_SECRET_KEY is too weak for DJANGO_DEBUG off (it needs at least "
        f"{django_security.SECRET_KEY_MIN_LENGTH} characters, not all alike, and no placeholder); make one "
        "with: python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
    )

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1")

PUBLIC_BASE_URL = os.environ.get("PUBLIC_BASE_URL", "http://127.0.0.1:8000").rstrip("/")
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0") or 0)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "config.app_names.SignInAttemptsConfig",  # django-axes, named for staff
    "corsheaders",
    "django_tasks",
    "django_tasks_db",
    "config",
    "sitekit",
    "operator_profile",
    "pricing",
    "places",
    "flights",
    "booking",
    "invoicing",
    "payments",
    "accounting",
    "privacy",
    "dispatch",
    "fleet",
    "access",
    "oauth",
    "mcp_endpoint",
    "web",
    "jobqueue",
    "sms",
    "corporate",
    "quote_requests",
    "webhooks",
]

MIDDLEWARE = [
    "apikit.head.HeadWithoutBodyMiddleware",  # first: the last to touch the response
    "apikit.request_limits.RequestLimitsMiddleware",  # 413/414 in each surface's format
    "apikit.private_answers.PrivateAnswersMiddleware",  # before the API shortcut: every answer passes
    "django.middleware.security.SecurityMiddleware",
    "sitekit.pages.CSPMiddleware",  # django-csp's, on HTML responses
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "apikit.cors.CorsMiddleware",  # django-cors-headers'; before the rate limit: a preflight is no request
    "apikit.ratelimit.RateLimitMiddleware",
    "apikit.public_reads.PublicReadsMiddleware",  # after the rate limit (a 304 counts); before the shortcut
    "apikit.shortcut.ApiShortcutMiddleware",  # API paths skip the rest: they serve pages
    "django.contrib.sessions.middleware.SessionMiddleware",
    "sitekit.i18n.PageLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "sitekit.methods.MethodsMiddleware",  # before CSRF: a method a page does not take is 405
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "operator_profile.context_processors.operator",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=60,
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database that hangs must fail a request well inside gunicorn's 30 s, so the caller gets the API's
    # error format (README "Failure behaviour"). Options in DATABASE_URL's query string win.
    DATABASES["default"]["OPTIONS"] = {
        "connect_timeout": 3,  # whole connection set-up, also a server that accepts and never answers
        "options": "-c statement_timeout=10s",  # a query the server runs too long
        "tcp_user_timeout": 5000,  # ms: sent data never acknowledged (host gone, network cut)
        "keepalives_idle": 5,  # seconds: an idle connection to a vanished host is found
        "keepalives_interval": 2,
        "keepalives_count": 2,
        **DATABASES["default"].get("OPTIONS", {}),
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default has two writers (`make run`: the web server and the job worker). Deferred
    # transactions that read, then write, deadlock and SQLite refuses one at once ("database is locked"):
    # take the write lock when a transaction starts, and wait for it up to 10 s.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 10,
        **DATABASES["default"].get("OPTIONS", {}),
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "apikit.cache.BreakerRedisCache",  # django-redis, skipped for 5 s after a failure
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "chauffeur",
            # Seconds: a healthy Redis answers in under 1 ms; a hanging one costs 50 ms, then the breaker.
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.05, "SOCKET_TIMEOUT": 0.05, "BREAK_SECONDS": 5},
        }
    }
else:
    # One process only: counters and caches are not shared between workers.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Sign-in throttling (django-axes): after 10 failed sign-ins from one client address, that address is
# refused for 15 minutes (HTTP 429); a success resets the count. Attempts are listed in the admin.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 10
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "apikit.clients.client_address"  # honours TRUSTED_PROXY_COUNT
AXES_LOCKOUT_TEMPLATE = "admin/locked_out.html"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Pages speak German or English: the URL prefix (/de/, /en/), else the `django_language` cookie, else
# Accept-Language (sitekit/i18n.py). The translations live in locale/ (the .mo files are committed).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# "1. Dezember 2026, 10:00" on pages; day before month in English too, and 23.11.2026 16:41 in the admin.
FORMAT_MODULE_PATH = ["sitekit.formats"]
# Paths that keep LANGUAGE_CODE whatever the browser asks: the APIs' messages are part of their contract.
# The admin follows its staff like the pages (and has a switch in its header).
UNTRANSLATED_PATHS = ("/api", "/openapi.json", "/healthz")
TIME_ZONE = "Europe/Vienna"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Security: the HTTPS settings follow the public address, so a plain-HTTP local run keeps working
# and an https deployment gets redirects, secure cookies and HSTS (`manage.py check --deploy` is clean).
SERVES_HTTPS = urlsplit(PUBLIC_BASE_URL).scheme == "https"
CSRF_TRUSTED_ORIGINS = [PUBLIC_BASE_URL]
SECURE_SSL_REDIRECT = SERVES_HTTPS
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^healthz/worker$"]
SESSION_COOKIE_SECURE = SERVES_HTTPS
CSRF_COOKIE_SECURE = SERVES_HTTPS
SECURE_HSTS_SECONDS = 31_536_000 if SERVES_HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SERVES_HTTPS
SECURE_HSTS_PRELOAD = SERVES_HTTPS
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# The map of the chauffeur coming on the traveller's manage page (web/static/booking/ride_map.js): a tile
# server's address with {z}/{x}/{y} (e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png, under its usage
# policy) and the attribution its licence asks for. Empty: no map, the position as text and the arrival
# time only. Its origin is the one other place pages may load images from.
MAP_TILE_URL = os.environ.get("MAP_TILE_URL", "").strip()
MAP_TILE_ATTRIBUTION = os.environ.get("MAP_TILE_ATTRIBUTION", "").strip()
MAP_TILE_ORIGIN = ""
if MAP_TILE_URL:
    _tiles = urlsplit(MAP_TILE_URL)
    # ride_map.js fills {z}, {x} and {y}, once each, and nothing else: a {s} subdomain would stay in the
    # address, its host outside the Content-Security-Policy.
    _other_parts = MAP_TILE_URL.replace("{z}", "", 1).replace("{x}", "", 1).replace("{y}", "", 1)
    if (
        _tiles.scheme not in {"https", "http"}
        or not _tiles.hostname
        or not all(part in MAP_TILE_URL for part in ("{z}", "{x}", "{y}"))
        or "{" in _other_parts
        or "}" in _other_parts
    ):
        sys.exit(
            "Start-up refused: MAP_TILE_URL must be an http(s) address with {z}, {x} and {y}, once each, "
            "and no other placeholder (no {s}: name one subdomain), such as "
            "https://tile.openstreetmap.org/{z}/{x}/{y}.png (or empty: no map)."
        )
    MAP_TILE_ORIGIN = f"{_tiles.scheme}://{_tiles.netloc}"

# Content-Security-Policy on every response (django-csp): scripts, styles and everything else only from
# this origin, never inline; no page may be framed. Images also from the map's tile server, when set.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:", *([MAP_TILE_ORIGIN] if MAP_TILE_ORIGIN else [])],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# CORS (django-cors-headers): the operator's websites (CORS_ALLOWED_ORIGINS, a comma list of origins such as
# https://www.example.com) may call the public endpoints and the page checkout from a browser, and load the
# embeddable form. Bearer-token endpoints (POST /api/v1/checkout, /api/mcp) stay server-to-server.
CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS", "")
CORS_URLS_REGEX = (
    r"^/(api/v1(/(price|distance|places|availability|rating))?"
    r"|api/(calculate-distance|places-autocomplete|google-rating|get-session-data|create-checkout-session)"
    r"|api/page/(checkout|quote|quote-requests)|embed/form)$"
)
CORS_ALLOW_METHODS = ("GET", "POST", "OPTIONS")
CORS_ALLOW_HEADERS = (
    "accept",
    "accept-language",
    "content-type",
    "idempotency-key",
    "page-session",
)  # no Authorization
CORS_EXPOSE_HEADERS = ("RateLimit", "RateLimit-Policy", "Retry-After", "Idempotent-Replayed")
# The OAuth endpoints a client calls from its own page answer every origin (apikit/cors.py), and their
# preflight allows these headers besides the ones above.
OAUTH_CORS_URLS_REGEX = r"^/(oauth/(token|revoke|register)|\.well-known/.+)$"
OAUTH_CORS_ALLOW_HEADERS = ("authorization", "mcp-protocol-version")
if TRUSTED_PROXY_COUNT > 0:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["apikit.renderers.DecimalJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["apikit.parsers.SafeJSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "apikit.negotiation.ContentNegotiation",
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "UNAUTHENTICATED_USER": None,
    "EXCEPTION_HANDLER": "apikit.problems.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "apikit.field_schemas.InputRulesSchema",
    "COERCE_DECIMAL_TO_STRING": False,
    "URL_FORMAT_OVERRIDE": None,  # `format` is an ordinary query word here, not a renderer switch
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Chauffeur booking service",
    "DESCRIPTION": (
        "Quotes (route, price, lead time), address suggestions, checkout and the rating snapshot of a "
        "Vienna chauffeur company. Errors on /api/v1 are application/problem+json (RFC 9457)."
    ),
    "VERSION": "1.1.0",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,
    # Named by what they are, not by the field ("state" is a word other answers may use too).
    "ENUM_NAME_OVERRIDES": {"RideStateEnum": "booking.models.RideState"},
    "WEBHOOKS": ["webhooks.openapi.BOOKING_EVENT"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        # before the shared responses, which add rate-limit headers
        "mcp_endpoint.openapi.document_mcp_endpoint",
        "apikit.schema.add_shared_responses",
        "apikit.schema_links.add_links",  # after the shared responses: links sit on them too
        "apikit.public_reads.declare_caching",  # after the shared responses: its 304 takes their headers
    ],
}

# Places (docs/decisions.md §3): Google when a key is set, else the built-in offline provider.
GOOGLE_MAPS_API_KEY = os.environ.get("GOOGLE_MAPS_API_KEY", "")
GOOGLE_PLACE_ID = os.environ.get("GOOGLE_PLACE_ID", "")
GOOGLE_ROUTES_URL = (os.environ.get("GOOGLE_ROUTES_URL") or "https://routes.googleapis.com").rstrip("/")
GOOGLE_PLACES_URL = (os.environ.get("GOOGLE_PLACES_URL") or "https://places.googleapis.com").rstrip("/")

# Flights: AeroDataBox (RapidAPI) follows the flights airport pickups meet when a key is set; without one
# no flight is followed and pickups stay at their booked time.
AERODATABOX_API_KEY = os.environ.get("AERODATABOX_API_KEY", "")
AERODATABOX_URL = (os.environ.get("AERODATABOX_URL") or "https://aerodatabox.p.rapidapi.com").rstrip("/")

# Payments (docs/decisions.md §9). The sandbox never switches itself on outside debug.
STRIPE_SECRET_KEY = os.environ.get("STRIPE_SECRET_KEY", "")
STRIPE_WEBHOOK_SECRET = os.environ.get("STRIPE_WEBHOOK_SECRET", "")
STRIPE_API_BASE = (os.environ.get("STRIPE_API_BASE") or "https://api.stripe.com").rstrip("/")
PAYMENT_PROVIDERS = ("stripe", "sandbox", "none")
PAYMENT_PROVIDER = os.environ.get("PAYMENT_PROVIDER", "").strip().lower() or (
    "stripe" if STRIPE_SECRET_KEY else "sandbox" if DEBUG else "none"
)
if PAYMENT_PROVIDER not in PAYMENT_PROVIDERS:
    sys.exit(f"Start-up refused: PAYMENT_PROVIDER must be one of {', '.join(PAYMENT_PROVIDERS)}.")
if PAYMENT_PROVIDER == "stripe" and not STRIPE_SECRET_KEY:
    sys.exit("Start-up refused: PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY.")
if PAYMENT_PROVIDER == "sandbox" and not DEBUG:  # its Pay button marks bookings paid without money
    sys.exit("Start-up refused: PAYMENT_PROVIDER=sandbox is for development only (DJANGO_DEBUG=true).")


# The accountant's export (accounting/export.py, docs/operations/accounting-export.md): the accounts
# it books to, defaults of the Austrian chart of accounts (EKR) for the accountant to replace.
def env_pairs(name: str, default: str) -> dict[str, str]:
    """ "10=4000,20=4020" → {"10": "4000", "20": "4020"}; start-up refused on a pair without "=". An empty
    variable (as compose passes an unset one) is the default."""
    pairs = {}
    text = os.environ.get(name, "").strip() or default
    for item in (part.strip() for part in text.split(",") if part.strip()):
        key, sign, value = item.partition("=")
        if not sign or not key.strip() or not value.strip():
            sys.exit(f"Start-up refused: {name} must be a comma list of key=value pairs, not {item!r}.")
        pairs[key.strip()] = value.strip()
    return pairs


ACCOUNTING_CUSTOMERS_ACCOUNT = os.environ.get("ACCOUNTING_CUSTOMERS_ACCOUNT", "").strip() or "20000"
ACCOUNTING_COMPANIES_ACCOUNT = os.environ.get("ACCOUNTING_COMPANIES_ACCOUNT", "").strip() or "20001"
ACCOUNTING_REVENUE_ACCOUNTS = env_pairs("ACCOUNTING_REVENUE_ACCOUNTS", "10=4000,20=4020,0=4100")
ACCOUNTING_PROVIDER_ACCOUNT = os.environ.get("ACCOUNTING_PROVIDER_ACCOUNT", "").strip() or "2890"
ACCOUNTING_BANK_ACCOUNT = os.environ.get("ACCOUNTING_BANK_ACCOUNT", "").strip() or "2800"
ACCOUNTING_CASH_ACCOUNT = os.environ.get("ACCOUNTING_CASH_ACCOUNT", "").strip() or "2700"
ACCOUNTING_SYMBOLS = {
    **{"invoice": "AR", "payment": "BK", "cash": "KA"},
    **env_pairs("ACCOUNTING_SYMBOLS", ""),
}

# Text messages (sms/): printed to the console unless a provider is configured.
TWILIO_ACCOUNT_SID = os.environ.get("TWILIO_ACCOUNT_SID", "")
TWILIO_AUTH_TOKEN = os.environ.get("TWILIO_AUTH_TOKEN", "")
TWILIO_FROM_NUMBER = os.environ.get("TWILIO_FROM_NUMBER", "")
TWILIO_API_BASE = (os.environ.get("TWILIO_API_BASE") or "https://api.twilio.com").rstrip("/")
SMS_PROVIDERS = ("console", "twilio")
SMS_PROVIDER = os.environ.get("SMS_PROVIDER", "").strip().lower() or (
    "twilio" if TWILIO_ACCOUNT_SID else "console"
)
if SMS_PROVIDER not in SMS_PROVIDERS:
    sys.exit(f"Start-up refused: SMS_PROVIDER must be one of {', '.join(SMS_PROVIDERS)}.")
if SMS_PROVIDER == "twilio" and not (TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER):
    sys.exit("Start-up refused: SMS_PROVIDER=twilio needs TWILIO_ACCOUNT_SID, _AUTH_TOKEN and _FROM_NUMBER.")
# Where text messages may go (sitekit/phones.py): mobile numbers of these countries (ISO 3166 codes), never
# premium-rate, shared-cost or international-network ranges. Austria and its neighbours by default.
SMS_COUNTRIES = [code.upper() for code in env_list("SMS_COUNTRIES", "AT,DE,CH,LI,IT,SI,HU,SK,CZ")]
if not all(len(code) == 2 and code.isalpha() and code.isascii() for code in SMS_COUNTRIES):
    sys.exit("Start-up refused: SMS_COUNTRIES must be a comma list of two-letter country codes, e.g. AT,DE.")

# Mails that requests without a sign-in may cause to one address in any hour, counted over every such mail
# (sitekit/mail_budget.py): the booking page's on-account link and a traveller's sign-in code.
ANONYMOUS_MAILS_PER_RECIPIENT = int(os.environ.get("ANONYMOUS_MAILS_PER_RECIPIENT") or 5)

OPERATOR_EMAIL = os.environ.get("OPERATOR_EMAIL", "")

# Webhooks (docs/api/webhooks.md): a failed delivery is tried again after each of these waits (Standard
# Webhooks' schedule: about a day and a half in all), then kept as failed and its endpoint paused.
WEBHOOKS_RETRY_SECONDS = tuple(
    int(seconds)
    for seconds in (os.environ.get("WEBHOOKS_RETRY_SECONDS") or "5,300,1800,7200,18000,36000,36000").split(
        ","
    )
)
WEBHOOKS_TIMEOUT_SECONDS = 10
WEBHOOKS_KEEP_DAYS = int(os.environ.get("WEBHOOKS_KEEP_DAYS") or 30)  # delivered events, then removed
# Endpoints on private addresses (a receiver on this machine) only in development: elsewhere a URL could make
# the server call its own network.
WEBHOOKS_PRIVATE_ADDRESSES = DEBUG
# E-mail: printed to the console unless an SMTP server is configured (Django's own variable names).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587") or 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = 10
# The sender's address; booking e-mails show the operator's name with it and reply to the operator profile's
# e-mail (booking/notifications.py). By default an address on the public host, never bookings@localhost.
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL") or f"bookings@{urlsplit(PUBLIC_BASE_URL).hostname}"

# Background jobs (jobqueue/, docs/operations/jobs.md): e-mails and provider follow-ups are rows in the
# database, written in the transaction of the change that causes them, run by `manage.py run_worker`.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
JOBS_MAX_ATTEMPTS = int(os.environ.get("JOBS_MAX_ATTEMPTS") or 8)  # then the job stays failed, in the admin
JOBS_RETRY_SECONDS = float(os.environ.get("JOBS_RETRY_SECONDS") or 30)  # the first backoff, doubling
JOBS_WORKER_LOST_SECONDS = float(os.environ.get("JOBS_WORKER_LOST_SECONDS") or 60)  # its running jobs rerun
JOBS_HEARTBEAT_SECONDS = 5.0
JOBS_POLL_SECONDS = 1.0  # an idle worker looks for new jobs this often
# Schedules run inside the worker (no cron): task → seconds between runs (0 switches one off).
JOBS_SCHEDULES = {
    "payments.tasks.reconcile_payments": int(os.environ.get("JOBS_RECONCILE_SECONDS") or 300),
    "booking.tasks.resend_confirmations": int(os.environ.get("JOBS_RESEND_CONFIRMATIONS_SECONDS") or 300),
    # the ride's day: travellers' and chauffeurs' reminders, staff's alert of rides without a chauffeur
    "dispatch.tasks.send_reminders": int(os.environ.get("JOBS_REMINDERS_SECONDS") or 300),
    # last month's collective invoices for company accounts, issued on the 1st (Vienna), missing ones after
    "payments.tasks.issue_collective_invoices": int(
        os.environ.get("JOBS_COLLECTIVE_INVOICES_SECONDS") or 3600
    ),
    # invoices and credit notes that waited for the seller's legal details (saving the profile starts it too)
    "payments.tasks.issue_waiting_documents": int(os.environ.get("JOBS_WAITING_DOCUMENTS_SECONDS") or 900),
    # what the retention policy keeps no longer (privacy/retention.py)
    "privacy.retention.remove_expired": int(os.environ.get("JOBS_RETENTION_SECONDS") or 86400),
    "webhooks.tasks.remove_old_events": 86400,
    # the flights airport pickups meet (dispatch/arrivals.py): each is asked at its own pace, this only wakes
    "dispatch.tasks.follow_flights": int(os.environ.get("JOBS_FLIGHTS_SECONDS") or 60),
}

# docs/decisions.md §7: the rate limit on every /api/ path (the payment webhook is exempt).
API_RATE_LIMIT_REQUESTS = 60
API_RATE_LIMIT_WINDOW_SECONDS = 60
API_RATE_LIMIT_EXEMPT_PATHS = ["/api/payments/stripe/webhook"]
# Pages that ask the payment provider on each visit; OAuth dynamic client registration (its POSTs are
# counted by their door, successes and failures apart: oauth/registration_limits.py).
RATE_LIMITED_PAGES = ["/booking/success", "/booking/cancel", "/oauth/register"]
# Who a request counts as, and its quota: the access app knows tokens, the MCP door tells its protocol
# housekeeping (initialize, tools/list, notifications …) from billable calls; the limiter knows neither.
API_RATE_LIMIT_CLIENT = "mcp_endpoint.rate_limits.client_quotas"
# A token's budget for MCP housekeeping, in the same window (mcp_endpoint/rate_limits.py).
MCP_HOUSEKEEPING_RATE_LIMIT = int(os.environ.get("MCP_HOUSEKEEPING_RATE_LIMIT") or 600)
# The booking page and the embedded form (README "Rate limits", apikit/page_sessions.py): each page
# served carries a signed page session, sent back in this header, valid this long. A valid one is its own
# client with a budget for a person (one traveller types two addresses, compares hours, tours and classes:
# about 40-80 calls); all page sessions of one address share a ceiling (twenty travellers behind one hotel
# address), which bounds a script. One address mints at most PAGE_SESSIONS_PER_ADDRESS sessions an hour;
# beyond that, and with a forged or expired session, the page counts as an ordinary API client.
PAGE_SESSION_HEADER = "Page-Session"
PAGE_SESSION_MAX_AGE_SECONDS = 6 * 3600
PAGE_RATE_LIMIT_WINDOW_SECONDS = 600
PAGE_SESSION_RATE_LIMIT = 300
PAGE_ADDRESS_RATE_LIMIT = 1200
PAGE_SESSIONS_PER_ADDRESS = 200
PAGE_SESSION_MINT_WINDOW_SECONDS = 3600

# OAuth 2.1 for /api/mcp and /api/v1 (oauth/, docs/agents/oauth.md): lifetimes of what the
# authorization server issues. An access token is short-lived; a refresh token is replaced at each use.
OAUTH_ACCESS_TOKEN_SECONDS = int(os.environ.get("OAUTH_ACCESS_TOKEN_SECONDS") or 3600)
OAUTH_REFRESH_TOKEN_DAYS = int(os.environ.get("OAUTH_REFRESH_TOKEN_DAYS") or 30)
OAUTH_CODE_SECONDS = int(os.environ.get("OAUTH_CODE_SECONDS") or 600)

# OAuth for the agent endpoint (docs/agents/oauth.md, "Registration limits"). Dynamic client registrations
# that succeed per client address and window (a hosted assistant registers one per user from a few shared
# addresses), and refused ones apart; how long a client ID metadata document is kept at most before it is
# fetched again (its own Cache-Control max-age may shorten it).
OAUTH_REGISTRATION_RATE_LIMIT = int(os.environ.get("OAUTH_REGISTRATION_RATE_LIMIT") or 300)
OAUTH_REGISTRATION_FAILURE_RATE_LIMIT = int(os.environ.get("OAUTH_REGISTRATION_FAILURE_RATE_LIMIT") or 30)
OAUTH_REGISTRATION_RATE_LIMIT_WINDOW_SECONDS = int(
    os.environ.get("OAUTH_REGISTRATION_RATE_LIMIT_WINDOW_SECONDS") or 3600
)
OAUTH_CLIENT_METADATA_SECONDS = int(os.environ.get("OAUTH_CLIENT_METADATA_SECONDS") or 3600)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": "INFO"},
    "loggers": {
        "django.request": {"level": "ERROR"},
        "django.utils.autoreload": {"level": "WARNING"},  # runserver prints its own start-up lines
        "stripe": {"level": "WARNING"},  # its INFO lines carry request URLs and Stripe's messages
        "axes.apps": {"level": "WARNING"},  # a version banner on every start
    },
}
