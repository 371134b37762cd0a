"""The compose file's proxy, run for real: nginx with deploy/nginx.conf (its upstream and listen address
rewritten to this machine's ports) in front of gunicorn as production runs it. Skipped, saying why, when no
nginx is installed (.ci/run installs Debian's)."""

import http.client
import os
import random
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests

from apikit.problems import problem_body
from apikit.request_limits import too_large, too_long
from tests.processes import ROOT, free_port, gunicorn, manage, migrated_sqlite, wait_until_healthy

NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
pytestmark = pytest.mark.skipif(
    NGINX is None, reason="nginx is not installed (apt-get install nginx-light); .ci/run installs it"
)
REDIS_URL = os.environ.get("REDIS_URL", "")
RATE = re.compile(r'^"default";r=(\d+);t=(\d+)$')
STAFF = {
    "DJANGO_SUPERUSER_USERNAME": "eva",
    "DJANGO_SUPERUSER_EMAIL": "eva@example.com",
    "DJANGO_SUPERUSER_PASSWORD": "proxy-test-password-8xj2",
}


def nginx_config(tmp: Path, *, upstream_port: int, port: int) -> Path:
    """A whole nginx.conf around the repository's server block, every file nginx writes inside `tmp`."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    for compose_value, local_value in (
        ("server web:8000;", f"server 127.0.0.1:{upstream_port};"),
        ("listen 80 default_server;", f"listen 127.0.0.1:{port} default_server;"),
    ):
        assert site.count(compose_value) == 1, f"deploy/nginx.conf no longer says {compose_value!r}"
        site = site.replace(compose_value, local_value)
    (tmp / "site.conf").write_text(site)
    temp_paths = "\n".join(
        f"    {kind}_temp_path {tmp}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    main = tmp / "nginx.conf"
    main.write_text(
        # As root, nginx's workers would otherwise drop to `nobody`, who cannot write into `tmp`.
        ("user root;\n" if os.geteuid() == 0 else "")
        + f"daemon off;\nworker_processes 1;\npid {tmp}/nginx.pid;\n"
        + "events { worker_connections 128; }\n"
        + f"http {{\n    access_log {tmp}/access.log;\n{temp_paths}\n    include {tmp}/site.conf;\n}}\n"
    )
    return main


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    """nginx's address in front of one gunicorn worker (unless Redis shares the limit between two)."""
    tmp = tmp_path_factory.mktemp("proxy")
    env = {
        "DJANGO_SECRET_KEY": "proxy-test-secret-key-" + "x" * 30,
        "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
        "TRUSTED_PROXY_COUNT": "1",  # as docker-compose.yml sets it for the web service
        **({"REDIS_URL": REDIS_URL} if REDIS_URL else {}),
    }
    # The production settings with the static files collected as the image has them (the admin's pages).
    (tmp / "proxy_settings.py").write_text(
        f"from config.settings import *  # noqa: F403\nSTATIC_ROOT = {str(tmp / 'static')!r}\n"
    )
    env |= {"PYTHONPATH": str(tmp), "DJANGO_SETTINGS_MODULE": "proxy_settings", "DJANGO_DEBUG": "false"}
    migrated_sqlite(tmp / "db.sqlite3")
    for command in (
        ("collectstatic", "--noinput", "--verbosity", "0"),
        ("createsuperuser", "--noinput"),
    ):
        done = manage(*command, **env, **STAFF)
        assert done.returncode == 0, done.stderr
    upstream = free_port()
    with gunicorn(tmp, env, workers=2 if REDIS_URL else 1, port=upstream):
        port = free_port()
        log = tmp / "nginx.log"
        config = nginx_config(tmp, upstream_port=upstream, port=port)
        with log.open("w") as output:
            server = subprocess.Popen(
                [NGINX, "-p", str(tmp), "-c", str(config), "-e", str(log)],
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_until_healthy(f"http://127.0.0.1:{port}", server, log, timeout=30)
            yield port
        finally:
            server.terminate()
            server.wait(timeout=10)


def get(
    port: int, path: str, *, source: str, headers: dict[str, str] | None = None
) -> http.client.HTTPResponse:
    """GET through nginx from `source`, a loopback address of its own: the client nginx sees."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    connection.request("GET", path, headers={"Host": "127.0.0.1", **(headers or {})})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def a_loopback_client() -> str:
    return f"127.{random.randint(1, 254)}.{random.randint(0, 255)}.{random.randint(1, 254)}"


def rate(response: http.client.HTTPResponse) -> tuple[int, int]:
    match = RATE.match(response.getheader("RateLimit", ""))
    assert match, response.getheaders()
    return int(match[1]), int(match[2])


def test_a_rotated_x_forwarded_for_does_not_change_the_rate_limit_identity(proxy):
    client = a_loopback_client()

    def forged(number: int) -> dict[str, str]:  # a new made-up client address on every request
        return {"X-Forwarded-For": f"203.0.113.{number % 250 + 1}, 198.51.100.{number % 200 + 1}"}

    first = get(proxy, "/api/v1", source=client, headers=forged(0))
    remaining, reset = rate(first)
    if reset < 20:  # the window would end mid-run: start in the next one
        time.sleep(reset + 1)
        first = get(proxy, "/api/v1", source=client, headers=forged(0))
        remaining, reset = rate(first)
    assert first.status == 200 and remaining == 59

    statuses = [get(proxy, "/api/v1", source=client, headers=forged(n)).status for n in range(1, 61)]
    assert statuses == [200] * 59 + [429], "61 requests from one client with 61 forged X-Forwarded-For"
    # The count is the real address's: another client is untouched, whatever header it sends.
    other = get(proxy, "/api/v1", source=a_loopback_client(), headers=forged(0))
    assert other.status == 200 and rate(other)[0] == 59


def test_slow_clients_do_not_hold_the_gunicorn_worker(proxy):
    # Each connection sends part of its headers and then nothing: gunicorn's one sync worker would wait on
    # the first of them; nginx holds them itself and passes on only complete requests.
    trickling = []
    try:
        for _ in range(4):
            sock = socket.create_connection(("127.0.0.1", proxy), timeout=5)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            trickling.append(sock)
        started = time.monotonic()
        response = get(proxy, "/healthz", source=a_loopback_client())
        assert response.status == 200
        assert time.monotonic() - started < 3
    finally:
        for sock in trickling:
            sock.close()


def test_staff_sign_in_through_the_proxy_on_a_port_other_than_80(proxy):
    # As a browser on http://127.0.0.1:<port>: its Origin names the port, and Django's CSRF check compares it
    # with the Host it got from nginx. PUBLIC_BASE_URL (a trusted origin) is another address, as when staff
    # open the site by IP or on a port of their own.
    base = f"http://127.0.0.1:{proxy}"
    assert proxy != 80
    browser = signed_in_browser(base)
    home = browser.get(f"{base}/admin/", timeout=10, allow_redirects=False)
    assert home.status_code == 200 and 'id="logout-form"' in home.text


def test_a_scan_of_megabytes_reaches_a_drivers_page_and_other_large_bodies_stop_at_the_proxy(proxy):
    base = f"http://127.0.0.1:{proxy}"
    browser = signed_in_browser(base)
    scan = b"\x89PNG\r\n\x1a\n" + os.urandom(5 * 2**20)  # a phone's photo of a licence
    form = browser.get(f"{base}/admin/fleet/driver/add/", timeout=10)
    driver = {
        "csrfmiddlewaretoken": csrf_token(form.text),
        "name": "Karl Huber",
        "phone": "+43 660 1112223",
        "active": "on",
        "papers-TOTAL_FORMS": "1",
        "papers-INITIAL_FORMS": "0",
        "papers-0-kind": "taxi_licence",
        "_continue": "on",  # to the driver's page, where its scan is linked
    }
    sent = {"headers": {"Origin": base, "Referer": form.url}, "timeout": 30, "allow_redirects": False}
    added = browser.post(
        form.url, data=driver, files={"papers-0-scan_file": ("ausweis.png", scan, "image/png")}, **sent
    )
    assert added.status_code == 302, added.text[-2000:]
    page = browser.get(f"{base}{added.headers['Location']}", timeout=10)
    link = re.search(r'href="(/admin/fleet/driver/\d+/papers/\d+/scan/)"', page.text)
    assert link and browser.get(f"{base}{link[1]}", timeout=30).content == scan
    elsewhere = browser.post(
        f"{base}/admin/booking/booking/add/", data=driver, files={"x": ("big.png", scan, "image/png")}, **sent
    )
    assert elsewhere.status_code == 413
    assert_problem_from_the_proxy(elsewhere, "request_too_large")


def test_long_addresses_are_refused_in_problem_json_by_the_service_then_by_the_proxy(proxy):
    base = f"http://127.0.0.1:{proxy}"
    by_the_service = requests.get(f"{base}/api/v1/places", params={"input": "x" * 5000}, timeout=10)
    assert by_the_service.status_code == 414
    assert by_the_service.json()["detail"] == too_long().detail
    by_the_proxy = requests.get(f"{base}/api/v1/places", params={"input": "x" * 20_000}, timeout=10)
    assert_problem_from_the_proxy(by_the_proxy, "uri_too_long")


def assert_problem_from_the_proxy(answer: requests.Response, code: str) -> None:
    """nginx's own refusal, worded as the service words that problem (its detail apart)."""
    assert answer.headers["Content-Type"] == "application/problem+json"
    body = answer.json()
    assert body["status"] == answer.status_code
    expected = problem_body(too_long() if code == "uri_too_long" else too_large())
    assert {**body, "detail": None} == {**expected, "detail": None}


def signed_in_browser(base: str) -> requests.Session:
    browser = requests.Session()
    form = browser.get(f"{base}/admin/login/", timeout=10)
    assert form.status_code == 200, form.text[-3000:]
    signed_in = browser.post(
        f"{base}/admin/login/?next=/admin/",
        data={
            "csrfmiddlewaretoken": csrf_token(form.text),
            "username": STAFF["DJANGO_SUPERUSER_USERNAME"],
            "password": STAFF["DJANGO_SUPERUSER_PASSWORD"],
            "next": "/admin/",
        },
        headers={"Origin": base, "Referer": f"{base}/admin/login/"},
        timeout=10,
        allow_redirects=False,
    )
    assert signed_in.status_code == 302, signed_in.text[:500]
    assert signed_in.headers["Location"] == "/admin/"
    return browser


def csrf_token(page: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found, page[-2000:]
    return found[1]
