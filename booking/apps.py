from django.apps import AppConfig


class BookingConfig(AppConfig):
    name = "booking"
    verbose_name = "Bookings"

    def ready(self) -> None:
        from booking.views import SUCCESS_PATH, too_many_requests
        from chauffeur.api.problems import SURFACE_WRITERS

        SURFACE_WRITERS[SUCCESS_PATH] = too_many_requests  # the rate limiter's 429, as a page
