from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OAuthConfig(AppConfig):
    name = "oauth"
    verbose_name = _("OAuth")

    def ready(self) -> None:
        from access.authentication import COUNTED_BY_THEIR_DOOR
        from apikit.problems import SURFACE_WRITERS
        from oauth.discovery import REGISTER_PATH
        from oauth.discovery_views import oauth_error_response

        COUNTED_BY_THEIR_DOOR.add(REGISTER_PATH)  # registration counts its successes and failures apart
        SURFACE_WRITERS[REGISTER_PATH] = oauth_error_response  # the rate limiter's 429 in OAuth's format
