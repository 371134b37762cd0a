"""A real Chromium (Debian's `chromium`, driven by Playwright) against a live gunicorn the tests start, with
the sandbox payment provider and a throwaway SQLite. A second little web server plays the operator's own
website on another origin. The tests save screenshots under artifacts/browser/ (ignored by git); the admin
pages' tests only of a page whose check failed."""

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.back_office import SELLER_DETAILS
from tests.processes import ROOT, free_port, gunicorn, manage, migrated_sqlite

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ARTIFACTS = ROOT / "artifacts" / "browser"
VIENNA = ZoneInfo("Europe/Vienna")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@dataclass(frozen=True)
class Service:
    base: str
    database: Path


@dataclass(frozen=True)
class Website:
    """The operator's website, serving a page with the embed tag, on an origin of its own."""

    base: str


def pytest_collection_modifyitems(config, items):
    reason = missing_browser()
    if reason:
        print(f"\nBrowser tests skipped: {reason}")
        for item in items:
            if item.path.parent == Path(__file__).parent:
                item.add_marker(pytest.mark.skip(reason=reason))


@functools.cache
def missing_browser() -> str | None:
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium; .ci/run installs it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    return None


SECRET_KEY = "browser-test-secret-key-" + "x" * 40  # the live server's: tests sign its links as it does


@pytest.fixture(scope="session")
def website_port() -> int:
    return free_port()


@pytest.fixture(scope="session")
def service(tmp_path_factory, website_port) -> Iterator[Service]:
    with live_service(
        tmp_path_factory.mktemp("browser"), "tests.browser.live_settings", website_port
    ) as running:
        yield running


@contextmanager
def live_service(
    tmp: Path, settings_module: str, website_port: int, *, workers: int = 2, **env: str
) -> Iterator[Service]:
    """gunicorn on a fresh SQLite with `settings_module` (and `env`), the sandbox payment provider and the
    website's origin allowed."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        "DJANGO_SETTINGS_MODULE": settings_module,
        "DJANGO_SECRET_KEY": SECRET_KEY,
        "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
        "DJANGO_DEBUG": "true",  # the sandbox payment provider runs in debug only
        "PAYMENT_PROVIDER": "sandbox",
        "PUBLIC_BASE_URL": base,
        "CORS_ALLOWED_ORIGINS": f"http://127.0.0.1:{website_port}",
        **env,
    }
    migrated_sqlite(tmp / "db.sqlite3")
    done = manage("shell", "--no-imports", "-c", SELLER_DETAILS, **env)
    assert done.returncode == 0, done.stdout + done.stderr
    with gunicorn(tmp, env, port=port, workers=workers):
        yield Service(base=base, database=tmp / "db.sqlite3")


@pytest.fixture(scope="session")
def website(tmp_path_factory, website_port, service) -> Iterator[Website]:
    folder = tmp_path_factory.mktemp("website")
    (folder / "index.html").write_text(
        "<!doctype html><html lang='de'><head><meta charset='utf-8'><title>Hotel Beispiel</title>"
        "<link rel='icon' href='data:,'></head>"
        "<body><h1>Hotel Beispiel – Transfers</h1>"
        f"<script src='{service.base}/static/booking/embed.js' data-lang='de' async></script>"
        "<p>Our own footer.</p></body></html>",
        encoding="utf-8",
    )
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", website_port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Website(base=f"http://127.0.0.1:{website_port}")
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # the test's output is for failures
        pass


# Per module, not per session: while Playwright's sync API is open it holds an event loop in this thread,
# and any later test calling asyncio.run() (the MCP client tests) would fail when run after these.
@pytest.fixture(scope="module")
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


# Chromium reports most refusals of the Content-Security-Policy on the console, but not every kind: the page's
# own `securitypolicyviolation` events are the complete list, so they are written to the console as well.
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => console.error(
  `Content Security Policy violation: ${event.violatedDirective} refused ${event.blockedURI || "inline code"}`
  + ` in ${event.sourceFile || document.location.pathname}:${event.lineNumber} (${event.sample})`));
"""


def watch_console(page) -> list[str]:
    """What `page` reports from now on, as it happens: console errors, uncaught exceptions and CSP violations."""
    errors: list[str] = []
    page.add_init_script(REPORT_CSP_VIOLATIONS)
    page.on("console", lambda message: message.type == "error" and errors.append(console_line(message)))
    page.on("pageerror", lambda error: errors.append(f"uncaught {error}"))
    return errors


def console_line(message) -> str:
    """The message, and where it came from (a failed load's message does not name what failed)."""
    return f"{message.text} ({message.location.get('url') or 'the page'})"


@pytest.fixture
def console_errors():
    """`errors = console_errors(page)` before the page opens anything; then `assert errors == []`."""
    return watch_console


AXE = ROOT / "tests" / "mcp_endpoint" / "node" / "node_modules" / "axe-core" / "axe.min.js"
# The success criteria axe-core can check: WCAG 2.0, 2.1 and 2.2 at levels A and AA, and its best practices.
AXE_RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def axe_missing() -> str | None:
    """Why axe-core cannot run here, or None (`make test` installs it with `npm ci` where npm is on the PATH)."""
    if AXE.exists():
        return None
    return f"axe-core is not installed ({AXE.relative_to(ROOT)} is missing: cd tests/mcp_endpoint/node && npm ci)"


def skip_without_axe() -> None:
    if reason := axe_missing():
        print(f"\nSkipped: {reason}")
        pytest.skip(reason)


def axe_violations(page) -> list[str]:
    """axe-core's findings on the page as it is now, one line each (rule, impact, the elements); skips the
    test, saying why, where axe-core is not installed."""
    skip_without_axe()
    # Evaluated through the DevTools protocol: the page's own CSP, which allows no inline script, stays on.
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    # No preload: it copies the page's stylesheets into <style> elements (for css-orientation-lock alone),
    # which the CSP refuses, so the test would cause the very console errors it looks for.
    found = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, preload: false})"
        ".then(result => result.violations"
        ".map(v => `${v.id} (${v.impact}): ${v.help} — ` + v.nodes.map(n => n.target.join(' ')).join(', ')))",
        AXE_RULES,
    )
    return list(found)


@pytest.fixture
def axe():
    """`assert axe(page) == []`: axe-core run in the page as it is (skips where axe-core is not installed)."""
    return axe_violations


@dataclass
class Tab:
    """A page in a fresh browser context, with what its console reported."""

    page: object
    problems: list[str]

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
def open_tab(chromium, request):
    contexts = []

    def open_tab(*, locale: str = "en-GB", viewport: dict = DESKTOP, **options) -> Tab:
        """`options` go to the browser context as they are (`has_touch=True` for a phone's taps)."""
        context = chromium.new_context(
            locale=locale, viewport=viewport, timezone_id="Europe/Vienna", **options
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        return Tab(page, watch_console(page))

    yield open_tab
    for context in contexts:
        context.close()


def pickup_day(days: int = 3) -> str:
    """A day in Vienna, where the form's dates are."""
    return (datetime.now(VIENNA).date() + timedelta(days=days)).isoformat()
