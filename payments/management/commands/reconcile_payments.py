from datetime import timedelta

from django.core.management.base import BaseCommand

from payments.reconciliation import reconcile_pending


class Command(BaseCommand):
    help = (
        "Ask the payment provider about bookings pending for a while (a safety net for lost webhooks), and "
        "expire those whose payment page was never opened (the provider failed at checkout). The worker "
        "runs this on its schedule (JOBS_RECONCILE_SECONDS); the command is for a run by hand."
    )

    def add_arguments(self, parser):
        parser.add_argument("--older-than-minutes", type=int, default=30)

    def handle(self, *args, older_than_minutes, **options):
        done = reconcile_pending(older_than=timedelta(minutes=older_than_minutes))
        self.stdout.write(
            f"Reconciled {done.pending} pending booking(s); {done.changed} changed state; "
            f"{done.differences} price difference(s) found paid; "
            f"{done.expired} without a payment page expired; "
            f"{done.forgotten} expired idempotency key(s) dropped."
        )
