from datetime import timedelta

from django.core.management.base import BaseCommand
from django.utils import timezone

from booking import selectors, transitions
from booking.models import BookingStatus
from payments import idempotency, payment_updates
from payments.providers import payment_provider


class Command(BaseCommand):
    help = (
        "Ask the payment provider about bookings pending for a while (a safety net for lost webhooks), and "
        "expire those whose payment page was never opened (the provider failed at checkout)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--older-than-minutes", type=int, default=30)

    def handle(self, *args, older_than_minutes, **options):
        cutoff = timezone.now() - timedelta(minutes=older_than_minutes)
        pending = list(selectors.pending_payment_since(cutoff))
        changed = sum(
            payment_updates.reconcile(booking, payment_provider).status != booking.status
            for booking in pending
        )
        differences = sum(
            payment_updates.reconcile_surcharge(surcharge, payment_provider)
            for surcharge in selectors.unpaid_surcharges_since(cutoff)
        )
        unpayable = list(selectors.never_given_a_payment_page(cutoff))
        for booking in unpayable:
            transitions.move(booking.pk, BookingStatus.EXPIRED, actor="reconcile_payments (no payment page)")
        forgotten = idempotency.forget_expired()
        self.stdout.write(
            f"Reconciled {len(pending)} pending booking(s); {changed} changed state; "
            f"{differences} price difference(s) found paid; "
            f"{len(unpayable)} without a payment page expired; "
            f"{forgotten} expired idempotency key(s) dropped."
        )
