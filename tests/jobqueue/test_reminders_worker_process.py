"""The reminders' schedule in real worker processes (`manage.py run_worker`, two of them) against a database
of their own and the fake mail server: the traveller whose pickup is within the reminder's hours gets one
reminder, the one further ahead none (the exact times are proven under a frozen clock in
tests/dispatch/test_reminders.py)."""

from tests.jobqueue.mailserver import wait_for
from tests.jobqueue.worker_processes import shell, unfinished_jobs, worker

REMINDER_SUBJECT = "Reminder of your chauffeur ride"


def paid_rides_ahead(env: dict[str, str], **hours_ahead: float) -> None:
    """A paid ride per e-mail address (`due=23` books due@example.com 23 hours ahead), booked days ago."""
    shell(
        env,
        "from datetime import timedelta\nfrom decimal import Decimal\nfrom django.utils import timezone\n"
        "from booking.checkout import new_reference\nfrom booking.models import Booking\n"
        "from payments.payment_updates import mark_paid\nfrom pricing.money import to_cents\n"
        "from pricing.services import quote_price\n"
        "q = quote_price(vehicle_class='executive', distance_km=Decimal('21.8'))\n"
        f"for name, hours in {hours_ahead!r}.items():\n"
        "    b = Booking.objects.create(reference=new_reference(), origin='Hotel Sacher', "
        "destination='Flughafen Wien', vehicle_class=q.vehicle_class, quote_record=q.as_record(), "
        "amount_cents=to_cents(q.price), booking_data={}, email=f'{name}@example.com', "
        "name='Guest', status='pending_payment', pickup_at=timezone.now() + timedelta(hours=hours))\n"
        "    Booking.objects.filter(pk=b.pk).update(created_at=timezone.now() - timedelta(days=3))\n"
        "    mark_paid(b.pk, method='cash', user=None, actor='test')\n",
    )


def reminders_to(mail_server, address: str) -> list[str]:
    return [subject for subject in mail_server.recorder.to(address) if subject.startswith(REMINDER_SUBJECT)]


def test_two_workers_remind_the_traveller_once_when_the_time_has_come(env, mail_server, tmp_path):
    mail_server.start()
    env = {**env, "JOBS_REMINDERS_SECONDS": "1"}  # the schedule runs every second in both workers
    paid_rides_ahead(env, due=23, later=25)
    with worker(env, tmp_path / "a.log"), worker(env, tmp_path / "b.log"):
        wait_for(lambda: reminders_to(mail_server, "due@example.com"), 120, "the reminder")
        wait_for(lambda: mail_server.recorder.to("later@example.com"), 120, "the other ride's confirmation")
        # Several more runs of the schedule in both workers: none may send the reminder again.
        runs = shell(
            env,
            "from jobqueue.models import Job\nprint(Job.objects.filter(task_path__endswith='send_reminders').count())",
        )
        before = int(runs.strip().splitlines()[-1])
        wait_for(
            lambda: (
                int(
                    shell(
                        env,
                        "from jobqueue.models import Job\nprint(Job.objects.filter("
                        "task_path__endswith='send_reminders', status='SUCCESSFUL').count())",
                    )
                    .strip()
                    .splitlines()[-1]
                )
                >= before + 3
            ),
            120,
            "three more runs of the schedule",
        )
        wait_for(lambda: unfinished_jobs(env) == 0, 60, "the queue to empty")
    logs = "\n".join(log.read_text() for log in (tmp_path / "a.log", tmp_path / "b.log"))
    assert len(reminders_to(mail_server, "due@example.com")) == 1, logs
    assert reminders_to(mail_server, "later@example.com") == [], logs
