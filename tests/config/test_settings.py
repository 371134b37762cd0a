"""Start-up from the environment (docs/decisions.md §2), checked in fresh processes as an operator would run them."""

import pytest

from tests.processes import clean_env, manage, project_env, run_python

PRODUCTION = {
    "DJANGO_DEBUG": "false",
    "DJANGO_SECRET_KEY": "k7#vQ2!pZr9@Lm4$Xw8^Nb3&Tf6*Hs1(Yd5)Gc0_Ue2+Ja7-Ro9=Vi4",
    "DJANGO_ALLOWED_HOSTS": "chauffeur.example.com",
    "PUBLIC_BASE_URL": "https://chauffeur.example.com",
    "DATABASE_URL": "postgres://chauffeur:secret@db.internal:5432/chauffeur",
    "REDIS_URL": "redis://cache.internal:6379/0",
    "TRUSTED_PROXY_COUNT": "1",
}


REFUSED = ["Start-up refused: set DJANGO_SECRET_KEY (required when DJANGO_DEBUG is off)."]
# Long enough and varied enough for production mode (Django's deploy check W009).
A_KEY = "settings-test-secret-key-" + "x" * 30
WEAK = (
    "Start-up refused: DJANGO_SECRET_KEY is too weak for DJANGO_DEBUG off (it needs at least 50 characters, "
    "not all alike, and no placeholder); make one with: "
    "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
)


def test_gunicorn_without_a_secret_key_refuses_to_start_with_one_line():
    # gunicorn imports config.wsgi: with nothing set, debug is off and the secret key required.
    result = run_python("-c", "import config.wsgi", env=clean_env())
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == REFUSED


def test_manage_py_with_debug_off_and_no_secret_key_refuses_to_start_with_one_line():
    result = manage("check", DJANGO_DEBUG="false")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == REFUSED


@pytest.mark.parametrize(
    "key",
    [
        "…",  # the documentation's placeholder, pasted
        "change-me",
        "k7#vQ2!pZr9@Lm4$Xw8^Nb3&Tf6*Hs1(Yd5)Gc0_Ue2+Ja7-R",  # 49 characters
        "x" * 60,  # long, but one character
        "abab" * 20,  # long, but two characters
        "django-insecure-" + "k7#vQ2!pZr9@Lm4$Xw8^Nb3&Tf6*Hs1(Yd5)Gc0_Ue2+Ja7-Ro9=Vi4",  # startproject's own
        "k7#vQ2!pZr9@Lm4$Xw8^Nb3&Tf6*Hs1(Yd5)…Gc0_Ue2+Ja7-Ro9=Vi4",  # a shortened one from a page
    ],
)
def test_a_weak_secret_key_stops_production_start_up_with_one_line_saying_how_to_make_one(key):
    imported = run_python("-c", "import config.wsgi", env=clean_env(DJANGO_SECRET_KEY=key))
    assert imported.returncode == 1
    assert imported.stderr.strip().splitlines() == [WEAK]
    checked = manage("check", DJANGO_DEBUG="false", DJANGO_SECRET_KEY=key)
    assert checked.returncode == 1
    assert checked.stderr.strip().splitlines() == [WEAK]


def test_the_way_the_refusal_makes_a_key_makes_one_production_accepts():
    made = run_python("-c", "import secrets; print(secrets.token_urlsafe(50))", env=clean_env())
    checked = manage("check", DJANGO_DEBUG="false", DJANGO_SECRET_KEY=made.stdout.strip())
    assert checked.returncode == 0, checked.stderr


def test_debug_accepts_any_secret_key_a_developer_sets():
    result = manage("check", DJANGO_DEBUG="true", DJANGO_SECRET_KEY="dev")
    assert result.returncode == 0, result.stderr


def test_debug_is_off_under_gunicorn_unless_asked_for():
    result = run_python(
        "-c",
        "import config.wsgi; from django.conf import settings; print(settings.DEBUG)",
        env=clean_env(DJANGO_SECRET_KEY=A_KEY),
    )
    assert result.stdout.strip() == "False", result.stderr


def test_manage_py_runs_in_debug_in_a_clean_shell():
    # A new user's shell: no DJANGO_* variable at all, not even DJANGO_SETTINGS_MODULE.
    env = clean_env()
    checked = run_python("manage.py", "check", env=env)
    assert checked.returncode == 0, checked.stderr
    assert "System check identified no issues" in checked.stdout
    shown = run_python(
        "manage.py",
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings; print(settings.DEBUG)",
        env=env,
    )
    assert shown.stdout.strip() == "True", shown.stderr


def test_debug_runs_without_a_secret_key():
    result = manage("check", DJANGO_DEBUG="true")
    assert result.returncode == 0, result.stderr


def test_payments_default_to_none_outside_debug():
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings; print(settings.PAYMENT_PROVIDER)",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=A_KEY,
    )
    assert result.stdout.strip() == "none", result.stderr


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"PAYMENT_PROVIDER": "paypal"},
            "Start-up refused: PAYMENT_PROVIDER must be one of stripe, sandbox, none.",
        ),
        (
            {"PAYMENT_PROVIDER": "stripe"},
            "Start-up refused: PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY.",
        ),
        (
            {"PAYMENT_PROVIDER": "sandbox", "DJANGO_DEBUG": "false", "DJANGO_SECRET_KEY": A_KEY},
            "Start-up refused: PAYMENT_PROVIDER=sandbox is for development only (DJANGO_DEBUG=true).",
        ),
        (
            {"SMS_COUNTRIES": "AT,Germany"},
            "Start-up refused: SMS_COUNTRIES must be a comma list of two-letter country codes, e.g. AT,DE.",
        ),
    ],
)
def test_an_impossible_payment_setting_stops_start_up_with_one_line(env, message):
    result = manage("check", **{"DJANGO_DEBUG": "true", **env})
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [message]


def test_every_model_change_has_its_migration():
    result = manage("makemigrations", "--check", "--dry-run", DJANGO_DEBUG="true")
    assert result.returncode == 0, result.stdout + result.stderr


def test_deploy_check_passes_with_the_documented_production_variables():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stderr + result.stdout
    assert "System check identified no issues" in result.stdout


def test_deploy_check_refuses_stripe_without_its_webhook():
    stripe = {"PAYMENT_PROVIDER": "stripe", "STRIPE_SECRET_KEY": "sk_live_x"}
    result = manage("check", "--deploy", "--fail-level", "WARNING", **{**PRODUCTION, **stripe})
    assert result.returncode == 1
    assert "chauffeur.W002" in result.stderr


def test_deploy_check_warns_when_the_cache_is_not_shared():
    production = {key: value for key, value in PRODUCTION.items() if key != "REDIS_URL"}
    result = manage("check", "--deploy", "--fail-level", "WARNING", **production)
    assert result.returncode == 1
    assert "chauffeur.W001" in result.stderr


@pytest.mark.parametrize(
    ("env", "expression", "expected"),
    [
        (
            {"DJANGO_ALLOWED_HOSTS": "a.example, b.example"},
            "settings.ALLOWED_HOSTS",
            "['a.example', 'b.example']",
        ),
        ({}, "settings.ALLOWED_HOSTS", "['localhost', '127.0.0.1']"),
        (
            {"DATABASE_URL": "postgres://u:p@h:5432/d"},
            "settings.DATABASES['default']['ENGINE']",
            "django.db.backends.postgresql",
        ),
        ({}, "settings.DATABASES['default']['ENGINE']", "django.db.backends.sqlite3"),
        (
            {"REDIS_URL": "redis://h:6379/1"},
            "settings.CACHES['default']['BACKEND']",
            "apikit.cache.BreakerRedisCache",
        ),
        ({}, "settings.CACHES['default']['BACKEND']", "django.core.cache.backends.locmem.LocMemCache"),
        (
            {"PUBLIC_BASE_URL": "https://x.example/"},
            "(settings.PUBLIC_BASE_URL, settings.SECURE_SSL_REDIRECT)",
            "('https://x.example', True)",
        ),
        ({}, "(settings.PUBLIC_BASE_URL, settings.SECURE_SSL_REDIRECT)", "('http://127.0.0.1:8000', False)"),
        ({"TRUSTED_PROXY_COUNT": "2"}, "settings.TRUSTED_PROXY_COUNT", "2"),
        ({}, "settings.EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend"),
        (
            {"EMAIL_HOST": "smtp.example.com", "EMAIL_PORT": "465"},
            "(settings.EMAIL_BACKEND, settings.EMAIL_PORT)",
            "('django.core.mail.backends.smtp.EmailBackend', 465)",
        ),
        ({}, "settings.PAYMENT_PROVIDER", "sandbox"),
        ({"SMS_COUNTRIES": " at, de ,gb"}, "settings.SMS_COUNTRIES", "['AT', 'DE', 'GB']"),
        ({}, "settings.ANONYMOUS_MAILS_PER_RECIPIENT", "5"),
        ({"ANONYMOUS_MAILS_PER_RECIPIENT": "2"}, "settings.ANONYMOUS_MAILS_PER_RECIPIENT", "2"),
        ({"STRIPE_SECRET_KEY": "sk_test_x"}, "settings.PAYMENT_PROVIDER", "stripe"),
        ({"PAYMENT_PROVIDER": "none"}, "settings.PAYMENT_PROVIDER", "none"),
        (
            {},
            "(settings.GOOGLE_ROUTES_URL, settings.GOOGLE_PLACES_URL)",
            "('https://routes.googleapis.com', 'https://places.googleapis.com')",
        ),
        (
            {"GOOGLE_ROUTES_URL": "http://127.0.0.1:9/", "STRIPE_API_BASE": "http://127.0.0.1:12111"},
            "(settings.GOOGLE_ROUTES_URL, settings.STRIPE_API_BASE)",
            "('http://127.0.0.1:9', 'http://127.0.0.1:12111')",
        ),
    ],
)
def test_settings_come_from_the_environment(env, expression, expected):
    assert read_settings(f"print({expression})", DJANGO_DEBUG="true", **env) == expected


def read_settings(code: str, **env: str) -> str:
    """What `code` prints about the settings module imported in a fresh process with `env` (the settings
    alone: what they read from the environment needs no app loaded)."""
    result = run_python("-c", f"from config import settings; {code}", env=project_env(**env))
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_an_empty_base_address_means_the_public_one():
    # docker-compose passes every variable through, unset ones as "": they must keep their defaults.
    probe = "print(settings.GOOGLE_ROUTES_URL, settings.GOOGLE_PLACES_URL, settings.STRIPE_API_BASE)"
    printed = read_settings(
        probe, DJANGO_DEBUG="true", GOOGLE_ROUTES_URL="", GOOGLE_PLACES_URL="", STRIPE_API_BASE=""
    )
    assert printed.split() == [
        "https://routes.googleapis.com",
        "https://places.googleapis.com",
        "https://api.stripe.com",
    ]
