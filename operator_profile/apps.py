from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CompanyConfig(AppConfig):
    name = "operator_profile"
    label = "company"  # its tables, permissions and migrations keep the old label
    verbose_name = _("Company")

    def ready(self) -> None:
        from operator_profile import checks  # noqa: F401  (registers the deploy check)
