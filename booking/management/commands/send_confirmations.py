from django.core.management.base import BaseCommand

from booking import notifications
from booking.models import Booking
from booking.states import PAID_STATES


class Command(BaseCommand):
    help = "Send the confirmations of paid bookings that could not be sent before (e.g. SMTP was down)."

    def handle(self, *args, **options):
        pending = list(Booking.objects.filter(status__in=PAID_STATES, confirmation_sent_at__isnull=True))
        sent = sum(notifications.send_confirmation(booking.pk) for booking in pending)
        self.stdout.write(f"Sent {sent} of {len(pending)} pending confirmation(s).")
