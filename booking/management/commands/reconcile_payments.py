from datetime import timedelta

from django.core.management.base import BaseCommand
from django.utils import timezone

from booking import payment_updates
from booking.models import Booking, BookingStatus
from booking.payments import payment_provider


class Command(BaseCommand):
    help = "Ask the payment provider about bookings pending for a while (a safety net for lost webhooks)."

    def add_arguments(self, parser):
        parser.add_argument("--older-than-minutes", type=int, default=30)

    def handle(self, *args, older_than_minutes, **options):
        cutoff = timezone.now() - timedelta(minutes=older_than_minutes)
        pending = Booking.objects.filter(
            status=BookingStatus.PENDING_PAYMENT, provider_session_id__isnull=False, created_at__lt=cutoff
        )
        changed = 0
        for booking in pending:
            changed += payment_updates.reconcile(booking, payment_provider).status != booking.status
        self.stdout.write(
            f"Reconciled {pending.count() + changed} pending booking(s); {changed} changed state."
        )
