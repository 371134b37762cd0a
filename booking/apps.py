from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BookingConfig(AppConfig):
    name = "booking"
    verbose_name = _("Bookings")

    def ready(self) -> None:
        from booking import text_messages
        from jobqueue.signals import job_gave_up

        job_gave_up.connect(text_messages.show_failed_message, dispatch_uid="booking.failed_message")
