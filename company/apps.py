from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CompanyConfig(AppConfig):
    name = "company"
    verbose_name = _("Company")

    def ready(self) -> None:
        from company import checks  # noqa: F401  (registers the deploy check)
