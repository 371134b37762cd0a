from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

PAGE_CHECKOUT_PATH = "/api/page/checkout"
PAGE_QUOTE_PATH = "/api/page/quote"


class BookingConfig(AppConfig):
    name = "booking"
    verbose_name = _("Bookings")

    def ready(self) -> None:
        from booking.views import CANCEL_PATH, SUCCESS_PATH, too_many_requests
        from chauffeur.api.problems import SURFACE_WRITERS, problem_response

        SURFACE_WRITERS[SUCCESS_PATH] = SURFACE_WRITERS[CANCEL_PATH] = too_many_requests  # 429 as a page
        SURFACE_WRITERS[PAGE_CHECKOUT_PATH] = problem_response  # the page reads codes and fields
        SURFACE_WRITERS[PAGE_QUOTE_PATH] = problem_response
