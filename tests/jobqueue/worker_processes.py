"""Real worker processes (`manage.py run_worker`) against a database of their own and a fake mail server on
loopback, for the tests that run no job in the test process: the fixtures (in tests/jobqueue/conftest.py) and
the helpers that read the database through `manage.py shell`."""

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.databases import server_database
from tests.jobqueue.mailserver import MailServer
from tests.processes import ROOT, free_port, manage, project_env

SECRET = "worker-test-secret-key-" + "x" * 40


@pytest.fixture(scope="module")
def database(tmp_path_factory) -> Iterator[dict[str, str]]:
    """SQLite in a file both processes open, or (when the suite runs on PostgreSQL) a database of its own."""
    with server_database(tmp_path_factory.mktemp("worker"), "worker") as url:
        env = {"DJANGO_SECRET_KEY": SECRET, "DATABASE_URL": url}
        if os.environ.get("REDIS_URL"):
            env["REDIS_URL"] = os.environ["REDIS_URL"]
        migrated = manage("migrate", "--noinput", **env)
        assert migrated.returncode == 0, migrated.stdout + migrated.stderr
        yield env


@pytest.fixture
def mail_server() -> Iterator[MailServer]:
    server = MailServer(free_port())
    yield server
    server.stop()


@pytest.fixture
def env(database, mail_server) -> dict[str, str]:
    return {
        **database,
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(mail_server.port),
        "EMAIL_USE_TLS": "false",
        "JOBS_RETRY_SECONDS": "1",
        "JOBS_WORKER_LOST_SECONDS": "4",
    }


def shell(env: dict[str, str], code: str) -> str:
    done = manage("shell", "-c", code, **env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def paid_bookings(env: dict[str, str], *emails: str) -> None:
    """Bookings staff mark paid: each transaction enqueues its confirmation."""
    shell(
        env,
        "from decimal import Decimal\n"
        "from booking.checkout import new_reference\nfrom booking.models import Booking\n"
        "from payments.payment_updates import mark_paid\nfrom pricing.money import to_cents\n"
        "from pricing.services import quote_price\n"
        "q = quote_price(vehicle_class='executive', distance_km=Decimal('21.8'))\n"
        f"for email in {list(emails)!r}:\n"
        "    b = Booking.objects.create(reference=new_reference(), origin='Hotel Sacher', "
        "destination='Flughafen Wien', vehicle_class=q.vehicle_class, quote_record=q.as_record(), "
        "amount_cents=to_cents(q.price), booking_data={}, email=email, "
        "name='Guest', status='pending_payment')\n"
        "    mark_paid(b.pk, method='cash', user=None, actor='test')\n",
    )


def confirmation_jobs(env: dict[str, str], email: str) -> list[dict]:
    """The confirmation jobs of `email`'s booking: state, attempts, last error."""
    out = shell(
        env,
        "import json\nfrom booking.models import Booking\nfrom jobqueue.models import Job\n"
        f"pk = Booking.objects.get(email={email!r}).pk\n"
        "print(json.dumps([{'id': str(j.id), 'status': j.status, 'attempts': len(j.worker_ids), "
        "'error': j.exception_class_path} for j in Job.objects.filter("
        "task_path='booking.tasks.send_confirmation', args_kwargs__args__0=pk)]))",
    )
    return json.loads(out.strip().splitlines()[-1])


def unfinished_jobs(env: dict[str, str]) -> int:
    out = shell(
        env,
        "from jobqueue.models import Job\n"
        "print(Job.objects.filter(status__in=['READY', 'RUNNING']).exclude(task_path__contains='reconcile')"
        ".exclude(task_path__contains='resend').count())",
    )
    return int(out.strip().splitlines()[-1])


@contextmanager
def worker(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen]:
    with log.open("a") as output:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "run_worker"],
            cwd=ROOT,
            env=project_env(**env),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
