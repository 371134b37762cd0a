from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccessConfig(AppConfig):
    name = "access"
    verbose_name = _("API access")

    def ready(self) -> None:
        from access import authentication  # noqa: F401  (registers the OpenAPI bearer scheme)
