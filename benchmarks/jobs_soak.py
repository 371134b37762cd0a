"""The job queue's soak: N paid bookings while the mail server flaps (down, refusing connections,
then up again, every few seconds), M real `run_worker` processes, a fresh database. When the queue is empty
it checks that every confirmation reached the fake mail server exactly once and prints the figures; it exits
non-zero if a mail is missing or duplicated.

    .venv/bin/python benchmarks/jobs_soak.py [--bookings 500] [--workers 2] [--database-url URL] [--quick]

The workers, the fake mail server and the booking creation are the ones of tests/jobqueue/worker_processes.py.
"""

import argparse
import logging
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.jobqueue.mailserver import MailServer, Recorder
from tests.jobqueue.worker_processes import SECRET, fresh_database, shell, worker
from tests.processes import free_port, manage

DEADLINE_SECONDS = 600  # the soak gives up on a queue that has not emptied by then
BATCH = 50  # bookings per `manage.py shell`: enqueueing stays spread over the flapping


class TimedRecorder(Recorder):
    """The tests' recorder, also noting when each message was accepted (for the lag)."""

    def __init__(self):
        super().__init__()
        self.received: list[tuple[list[str], float]] = []

    async def handle_DATA(self, server, session, envelope):
        answer = await super().handle_DATA(server, session, envelope)
        if answer.startswith("250"):
            self.received.append((list(envelope.rcpt_tos), time.time()))
        return answer


class Flapper(threading.Thread):
    """Keeps the mail server up for `up` seconds, then down (connections refused) for `down`, until stopped;
    adds up the time it was down."""

    def __init__(self, server: MailServer, up: float, down: float):
        super().__init__(daemon=True, name="mail-flapper")
        self.server, self.up, self.down = server, up, down
        self.stopping = threading.Event()
        self.down_seconds, self.outages = 0.0, 0

    def run(self) -> None:
        while True:
            self.server.start()
            if self.stopping.wait(self.up):
                return
            self.server.stop()
            went_down = time.monotonic()
            self.outages += 1
            stopped = self.stopping.wait(self.down)
            self.down_seconds += time.monotonic() - went_down
            if stopped:
                self.server.start()  # left up, so the end state is a working server
                return


def paid_bookings(env: dict[str, str], emails: list[str]) -> int:
    """The tests' paid_bookings() (a booking created, then marked paid by staff: the transaction enqueues its
    confirmation), plus a retry of what SQLite refused with "database is locked" while the workers write:
    a refused statement or transaction committed nothing, so trying it again makes no second booking or job.
    Returns how many retries it took."""
    out = shell(
        env,
        "import time\nfrom decimal import Decimal\nfrom django.db import OperationalError\n"
        "from booking.checkout import new_reference\nfrom booking.models import Booking\n"
        "from payments.payment_updates import mark_paid\nfrom pricing.money import to_cents\n"
        "from pricing.services import quote_price\n"
        "q = quote_price(vehicle_class='executive', distance_km=Decimal('21.8'))\n"
        "retries = 0\n"
        "def retried(step):\n"
        "    global retries\n"
        "    while True:\n"
        "        try:\n"
        "            return step()\n"
        "        except OperationalError:\n"
        "            retries += 1\n"
        "            time.sleep(0.05)\n"
        f"for email in {emails!r}:\n"
        "    b = retried(lambda: Booking.objects.create(reference=new_reference(), origin='Hotel Sacher', "
        "destination='Flughafen Wien', vehicle_class=q.vehicle_class, quote_record=q.as_record(), "
        "amount_cents=to_cents(q.price), booking_data={}, email=email, "
        "name='Guest', status='pending_payment'))\n"
        "    retried(lambda: mark_paid(b.pk, method='cash', user=None, actor='soak'))\n"
        "print(retries)\n",
    )
    return int(out.strip().splitlines()[-1])


def drop_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}" WITH (FORCE)')


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bookings", type=int, default=500)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--database-url",
        default="",
        help="default: a fresh SQLite file in a temporary folder; a postgres URL: a fresh database beside it "
        "(<name>_worker), dropped at the end",
    )
    parser.add_argument("--quick", action="store_true", help="60 bookings, for a fast check")
    parser.add_argument("--up", type=float, default=4.0, help="seconds the mail server stays up per flap")
    parser.add_argument("--down", type=float, default=1.5, help="seconds it stays down per flap")
    args = parser.parse_args()
    bookings = 60 if args.quick else args.bookings

    tmp = Path(tempfile.mkdtemp(prefix="jobs-soak-"))
    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url  # fresh_database() reads it, as in the tests
    database_url = fresh_database(tmp)
    env = {"DJANGO_SECRET_KEY": SECRET, "DATABASE_URL": database_url}
    migrated = manage("migrate", "--noinput", **env)
    if migrated.returncode != 0:
        raise SystemExit(migrated.stdout + migrated.stderr)

    # This process reads the jobs table through the ORM, on the soak's database.
    os.environ.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    import django

    django.setup()
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd's line per connection
    from django.conf import settings
    from django.db import OperationalError, connection

    from booking.models import Booking
    from booking.tasks import send_confirmation
    from jobqueue.models import Job

    def unfinished() -> int:
        try:
            return (
                Job.objects.filter(status__in=["READY", "RUNNING"])
                .exclude(task_path__in=list(settings.JOBS_SCHEDULES))
                .count()
            )
        except OperationalError:  # SQLite busy under the workers' writes: ask again
            return -1

    mail_server = MailServer(free_port())
    mail_server.recorder = TimedRecorder()
    worker_env = {
        **env,
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(mail_server.port),
        "EMAIL_USE_TLS": "false",
        "JOBS_RETRY_SECONDS": "1",
    }
    emails = [f"soak{number}@example.com" for number in range(bookings)]
    flapper = Flapper(mail_server, args.up, args.down)
    print(
        f"soak: {bookings} bookings, {args.workers} workers, {connection.vendor} ({tmp}), "
        f"mail server up {args.up} s / down {args.down} s",
        flush=True,
    )

    with ExitStack() as running:
        for number in range(args.workers):
            running.enter_context(worker(worker_env, tmp / f"worker{number}.log"))
        flapper.start()
        started = time.monotonic()
        locked = sum(
            paid_bookings(worker_env, emails[first : first + BATCH]) for first in range(0, bookings, BATCH)
        )
        created = time.monotonic()
        print(f"created {bookings} paid bookings in {created - started:.1f} s", flush=True)
        while (left := unfinished()) != 0 and time.monotonic() - started < DEADLINE_SECONDS:
            time.sleep(0.5)
        drained = time.monotonic()
        flapper.stopping.set()
        flapper.join()
    mail_server.stop()

    wall = drained - started
    jobs = list(Job.objects.exclude(task_path__in=list(settings.JOBS_SCHEDULES)))
    confirmations = [job for job in jobs if job.task_path == send_confirmation.module_path]
    first_enqueued: dict[int, float] = {}
    for job in confirmations:
        booking_id = job.args_kwargs["args"][0]
        enqueued = job.enqueued_at.timestamp()
        first_enqueued[booking_id] = min(first_enqueued.get(booking_id, enqueued), enqueued)
    booking_of = dict(Booking.objects.filter(email__in=emails).values_list("email", "pk"))
    received_at = {recipients[0]: at for recipients, at in mail_server.recorder.received}
    lags = [
        received_at[e] - first_enqueued[booking_of[e]] for e in emails if e in received_at and e in booking_of
    ]
    per_recipient = Counter(
        address for recipients, _subject in mail_server.recorder.accepted for address in recipients
    )
    missing = [e for e in emails if per_recipient[e] == 0]
    duplicated = {e: n for e, n in per_recipient.items() if e in emails and n > 1}
    unexpected = {e: n for e, n in per_recipient.items() if e not in emails}
    attempts = sum(len(job.worker_ids) for job in jobs)
    states = Counter(job.status for job in jobs)

    print(f"bookings                     {bookings} ({len(booking_of)} in the database)")
    print(f"workers                      {args.workers}")
    print(f"database                     {connection.vendor}")
    print(f"jobs                         {len(jobs)} ({len(confirmations)} confirmations), {dict(states)}")
    print(
        f"wall time                    {wall:.1f} s (creation {created - started:.1f} s; "
        f"first booking to empty queue)"
    )
    print(f"jobs/s                       {states['SUCCESSFUL'] / wall:.2f}")
    if lags:
        print(
            f"enqueue-to-sent lag          p50 {statistics.median(lags):.2f} s, "
            f"p99 {percentile(lags, 0.99):.2f} s, max {max(lags):.2f} s"
        )
    print(f"attempts                     {attempts}, retries {attempts - len(jobs)} (failed attempts rerun)")
    print(f'creation retries             {locked} ("database is locked" while the workers wrote)')
    print(
        f"mail server                  {flapper.outages} outages, down {flapper.down_seconds:.1f} s "
        f"= {flapper.down_seconds / wall:.0%} of the wall time"
    )
    print(f"mails accepted               {len(mail_server.recorder.accepted)}")
    print(f"missing                      {len(missing)} {missing[:10]}")
    print(f"duplicated                   {len(duplicated)} {dict(list(duplicated.items())[:10])}")
    print(f"unexpected recipients        {len(unexpected)} {dict(list(unexpected.items())[:10])}")
    if left:
        print(f"the queue still held {left} jobs after {DEADLINE_SECONDS} s")
    ok = not (missing or duplicated or unexpected or left) and len(booking_of) == bookings
    print("RESULT                       " + ("every e-mail delivered exactly once" if ok else "FAILED"))
    if ok:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"worker logs                  {tmp}")

    connection.close()
    if database_url.startswith("postgres"):
        drop_database(database_url)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
