"""docker-compose.yml cannot be run here (no Docker engine), so it is read: every setting the service
takes from the environment reaches the web container."""

import re
import subprocess

import yaml

from tests.processes import ROOT

COMPOSE = (ROOT / "docker-compose.yml").read_text()
# Set by compose itself for its own services, or meaningful only outside a container.
FIXED_BY_COMPOSE = {"DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG"}


def documented_variables() -> set[str]:
    """The variables of the configuration table (docs/operations/configuration.md, before its first section)."""
    page = (ROOT / "docs" / "operations" / "configuration.md").read_text()
    table = page[: page.index("\n## ")]
    return {
        name for row in re.findall(r"^\| (`.+?`) \|", table, re.M) for name in re.findall(r"`(\w+)`", row)
    }


def test_every_documented_setting_reaches_the_web_container():
    passed = set(re.findall(r"^      (\w+): ", COMPOSE, re.M))
    missing = documented_variables() - passed - FIXED_BY_COMPOSE
    assert not missing, f"docker-compose.yml does not pass {sorted(missing)} to the web service"


# --- the buffering proxy in front of gunicorn ---------------------------------------------------------------

SERVICES = yaml.safe_load(COMPOSE)["services"]
NGINX_CONF = (ROOT / "deploy" / "nginx.conf").read_text()


def directives(name: str) -> list[str]:
    """The arguments of every `name …;` directive of deploy/nginx.conf, comments left out."""
    text = re.sub(r"#[^\n]*", "", NGINX_CONF)
    return [" ".join(found.split()) for found in re.findall(rf"(?:^|[;{{}}\s]){name}\s+([^;{{}}]+);", text)]


def test_gunicorn_is_not_published_only_exposed_to_the_proxy():
    web = SERVICES["web"]
    assert "ports" not in web, "gunicorn must be reached through the proxy only"
    assert web["expose"] == ["8000"]


def test_the_proxy_publishes_the_port_with_the_repos_config_and_a_pinned_official_image():
    proxy = SERVICES["proxy"]
    image, _, tag = proxy["image"].partition(":")
    assert image == "nginx"
    assert re.fullmatch(r"\d+\.\d+\.\d+(-alpine)?", tag), f"pin an exact nginx version, not {tag!r}"
    assert proxy["ports"] == ["${PORT:-8000}:80"]
    assert "./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in proxy["volumes"]
    assert proxy["depends_on"]["web"]["condition"] == "service_healthy"
    # The health check goes through nginx to /healthz; every part of it is one string (YAML-quoted).
    check = proxy["healthcheck"]["test"]
    assert all(isinstance(part, str) for part in check), check
    assert check[0] == "CMD-SHELL" and "http://127.0.0.1/healthz" in check[1]


def test_the_web_service_trusts_exactly_the_one_proxy_hop():
    assert str(SERVICES["web"]["environment"]["TRUSTED_PROXY_COUNT"]) == "1"


def test_the_proxy_overwrites_x_forwarded_for_with_the_address_it_saw():
    headers = dict(value.split(None, 1) for value in directives("proxy_set_header"))
    # $remote_addr, never $proxy_add_x_forwarded_for: a client's own header must not reach Django.
    assert headers["X-Forwarded-For"] == "$remote_addr"
    assert headers["X-Forwarded-Proto"] == "$scheme"
    assert headers["Host"] == "$http_host"  # the port too: $host drops it, and CSRF then fails on :8000


def test_the_proxy_buffers_bounds_bodies_and_times_out():
    assert set(directives("proxy_pass")) == {"http://chauffeur_web"}  # every location
    assert directives("server") == ["web:8000"]  # the upstream: compose's web service
    assert directives("proxy_request_buffering") == ["on"]
    assert directives("proxy_buffering") == ["on"]
    # 3 MB everywhere; the pages that upload the papers' scans (at most 10 MB each) take a few.
    assert directives("client_max_body_size") == ["3m", "25m"]
    assert re.search(
        r"location ~ \^/admin/fleet/\(driver\|vehicle\)/ \{\s*client_max_body_size 25m;", NGINX_CONF
    )
    for timeout in ("client_header_timeout", "client_body_timeout", "proxy_connect_timeout"):
        assert directives(timeout) and int(directives(timeout)[0].removesuffix("s")) <= 10, timeout
    # Longer than gunicorn's worker timeout (30 s): the app's own error answer reaches the client.
    assert int(directives("proxy_read_timeout")[0].removesuffix("s")) > 30


# --- the worker ---------------------------------------------------------------------------------------------


def test_the_worker_runs_from_the_web_image_with_the_web_environment():
    worker, web = SERVICES["worker"], SERVICES["web"]
    assert worker["build"] == web["build"] == "."
    assert worker["command"] == ["python", "manage.py", "run_worker"]
    assert worker["environment"] == web["environment"]  # one anchor: the same settings, secrets included
    assert set(worker["depends_on"]) == {"migrate", "postgres", "redis"}
    assert "ports" not in worker and "expose" not in worker  # it serves nothing


def test_the_schedules_run_inside_the_worker_not_a_service_of_their_own():
    assert not [name for name in SERVICES if "beat" in name or "scheduler" in name or "cron" in name]


# --- migrations before anything uses the schema -----------------------------------------------------------


def test_one_migrate_service_runs_to_completion_before_web_and_worker_start():
    migrate = SERVICES["migrate"]
    assert (
        migrate["build"] == SERVICES["web"]["build"]
        and migrate["environment"] == SERVICES["web"]["environment"]
    )
    assert migrate["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert migrate["restart"] == "no"  # a one-shot: compose must not start it again after it exits 0
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("web", "worker"):
        assert SERVICES[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name


def test_only_the_migrate_service_migrates():
    # The image's CMD migrates before gunicorn; in compose web runs gunicorn alone, so two web containers
    # (`--scale web=2`) never migrate side by side.
    migrating = [
        name for name, service in SERVICES.items() if "migrate" in " ".join(service.get("command", []))
    ]
    assert migrating == ["migrate"]
    assert SERVICES["web"]["command"][0] == "gunicorn"


# --- secrets stay out of git and out of the image ----------------------------------------------------------

SECRET_FILES = [".env", ".env.production", ".env.local", "deploy/.env"]


def dockerignored(path: str) -> bool:
    """Whether `docker build` leaves `path` out of its context, by .dockerignore's rules (Docker's
    patternmatcher: patterns anchored at the context's root, `**` any number of folders, a pattern that
    matches a folder leaves out what is in it, the last matching pattern decides, `!` takes back)."""
    ignored = False
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        pattern = line.strip()
        if not pattern or pattern.startswith("#"):
            continue
        keep = pattern.startswith("!")
        pattern = pattern.removeprefix("!").strip("/")
        parts = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*")
        regex = parts.replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
        if re.fullmatch(rf"{regex}(?:/.*)?", path):
            ignored = not keep
    return ignored


def test_env_files_are_ignored_by_git_but_an_example_is_not():
    for path in SECRET_FILES:
        assert subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0, path
    assert subprocess.run(["git", "check-ignore", "-q", ".env.example"], cwd=ROOT).returncode == 1


def test_env_files_stay_out_of_the_image_the_dockerfile_copies():
    assert re.search(r"^COPY \. \.$", (ROOT / "Dockerfile").read_text(), re.M)  # the whole build context
    for path in SECRET_FILES:
        assert dockerignored(path), f"{path} would be baked into the image"
    assert not dockerignored(".env.example")
    assert not dockerignored("config/settings.py") and not dockerignored("manage.py")
    assert dockerignored(".git/config") and dockerignored(
        "tests/settings.py"
    )  # the rules read as docker does
