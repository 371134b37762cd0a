from django.apps import AppConfig

PAGE_CHECKOUT_PATH = "/api/page/checkout"
PAGE_QUOTE_PATH = "/api/page/quote"
PAGE_QUOTE_REQUEST_PATH = "/api/page/quote-requests"


class WebConfig(AppConfig):
    """The web door: the traveller's pages (booking page, embedded form, success, cancel, manage) and the
    two API calls of their script. No models: it opens onto the booking and payment services."""

    name = "web"

    def ready(self) -> None:
        from apikit.problems import SURFACE_WRITERS, problem_response
        from web.views import CANCEL_PATH, SUCCESS_PATH, too_many_requests

        SURFACE_WRITERS[SUCCESS_PATH] = SURFACE_WRITERS[CANCEL_PATH] = too_many_requests  # 429 as a page
        SURFACE_WRITERS[PAGE_CHECKOUT_PATH] = problem_response  # the page reads codes and fields
        SURFACE_WRITERS[PAGE_QUOTE_PATH] = problem_response
        SURFACE_WRITERS[PAGE_QUOTE_REQUEST_PATH] = problem_response
