"""The back office served for a real browser: a throwaway database with the demo working day
(`manage.py demo_data`), a staff user, and the service in a process of its own; and Debian's Chromium
driven by Playwright. Used by the browser tests and by docs/screenshots.py."""

import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.processes import ROOT, free_port, manage, migrated_sqlite, project_env, wait_until_healthy

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
STAFF, PASSWORD = "eva", "dispatch-demo-password"


def browser_missing() -> str | None:
    """Why no browser test can run here, or None."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    if not shutil.which(CHROMIUM):
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium, or set CHROMIUM)"
    return None


@dataclass(frozen=True)
class Served:
    base: str
    env: dict[str, str]


# The seller's legal details an operator fills in before the first booking (invoices wait without them).
SELLER_DETAILS = (
    "from operator_profile.models import OperatorProfile; OperatorProfile.objects.filter(id=1).update("
    "legal_name='Wiener Chauffeur GmbH', street_address='Kärntner Ring 1', postcode='1010', city='Wien', "
    "vat_id='ATU12345678')"
)


# The demo working day as a database file, made once per test process and kind, then copied for each back
# office: the fresh Django processes that make it on a copy of the migrated database (the seller's details,
# demo_data, the staff user) cost more than most of the tests that use it. Nothing in it names the server's
# address.
_prepared: dict[bool, Path] = {}


def demo_database(seller_details: bool) -> Path:
    if seller_details not in _prepared:
        folder = Path(tempfile.mkdtemp(prefix="back-office-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        env = {
            "DJANGO_DEBUG": "true",
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "PAYMENT_PROVIDER": "sandbox",
            "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
        }
        details = [("shell", "--no-imports", "-c", SELLER_DETAILS)] if seller_details else []
        migrated_sqlite(folder / "db.sqlite3")
        for step in (
            *details,
            ("demo_data",),
            ("createsuperuser", "--noinput", "--username", STAFF, "--email", "eva@chauffeur.test"),
        ):
            done = manage(*step, **env)
            assert done.returncode == 0, done.stdout + done.stderr
        _prepared[seller_details] = folder / "db.sqlite3"
    return _prepared[seller_details]


@contextmanager
def back_office(folder: Path, *, seller_details: bool = True) -> Iterator[Served]:
    """`seller_details=False`: the operator profile as a fresh install has it, its invoices waiting."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    shutil.copyfile(demo_database(seller_details), folder / "db.sqlite3")
    env = {
        "DJANGO_DEBUG": "true",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "PAYMENT_PROVIDER": "sandbox",
        "PUBLIC_BASE_URL": base,
    }
    log = folder / "server.log"
    with log.open("w") as output:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=project_env(**env),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until_healthy(base, server, log)
        yield Served(base, env)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)


@contextmanager
def chromium(width: int = 1366, height: int = 900):
    """A page of a headless Chromium, at a laptop's screen size."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield browser.new_page(viewport={"width": width, "height": height}, timezone_id="Europe/Vienna")
        finally:
            browser.close()


def sign_in(page, base: str, username: str = STAFF, password: str = PASSWORD) -> None:
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/admin/")
