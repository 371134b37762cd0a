from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccessConfig(AppConfig):
    name = "access"
    verbose_name = _("API access")

    def ready(self) -> None:
        from access import authentication  # noqa: F401  (registers the OpenAPI bearer scheme)
        from access.oauth.discovery import REGISTER_PATH
        from access.oauth.discovery_views import oauth_error_response
        from apikit.problems import SURFACE_WRITERS

        SURFACE_WRITERS[REGISTER_PATH] = oauth_error_response  # the rate limiter's 429 in OAuth's format
