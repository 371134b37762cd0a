from django.core.management.base import BaseCommand

from booking import notifications, selectors


class Command(BaseCommand):
    help = "Send the confirmations of paid bookings that could not be sent before (e.g. SMTP was down)."

    def handle(self, *args, **options):
        pending = list(selectors.awaiting_confirmation())
        sent = sum(notifications.send_confirmation(booking.pk) for booking in pending)
        self.stdout.write(f"Sent {sent} of {len(pending)} pending confirmation(s).")
