"""Peer "bare Django" of `make bench`: a startproject-default project (its middleware, DEBUG off) whose plain
function views do the project's domain work (benchmarks/peers/work.py) with no framework on top: no
token, no rate limit, no serializers. The database is read once per process, for the tariffs."""

import os

import dj_database_url

DEBUG = False
SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "benchmarks.peers.bare_django.views"
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "pricing",  # the tariff tables, read once per process
    "places",  # the offline provider's module defines the rating model; no table is read
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
TIME_ZONE = "Europe/Vienna"
USE_TZ = True
